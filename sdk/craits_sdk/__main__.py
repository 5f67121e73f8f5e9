"""``python -m craits_sdk run MODULE:CLASS``: see ``craits_sdk.cli``."""

from craits_sdk.cli import main

raise SystemExit(main())
