"""``python -m craits`` is the same as the ``craits`` command."""

import sys

from craits.cli.main import main

sys.exit(main())
