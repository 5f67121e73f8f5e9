"""A bot that plays one decision, then writes terminal escape codes and a bidirectional override
to stderr, in an ERROR line as the SDK logs one on its way out, and exits: that last line
becomes the crash reason the organiser sees."""

from __future__ import annotations

import os
import sys

from craits_bots.random import RandomBot
from craits_sdk import View, run

LAST_WORDS = "craits_sdk: ERROR: \x1b]0;pwned\x07\x1b[2J\x1b[31mall clear\u202egnp.exe\x1b[0m"


class EscapingBot(RandomBot):
    def decide(self, view: View) -> int:
        print(LAST_WORDS, file=sys.stderr, flush=True)
        os._exit(3)


if __name__ == "__main__":
    run(EscapingBot)
