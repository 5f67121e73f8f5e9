"""The smallest pipe bot (bots/pipe/first_legal.sh) behind ``craits pipe``, which does the
dialling for it, through the compliance suite that every bot in every language runs."""

from __future__ import annotations

import sys

from .compliance import BotCompliance
from .helpers import PIPE_BOTS


class TestPipeBot(BotCompliance):
    name = "pipe"

    def build(self) -> list[str]:
        return [sys.executable, "-m", "craits", "pipe", "--", "bash",
                str(PIPE_BOTS / "first_legal.sh")]
