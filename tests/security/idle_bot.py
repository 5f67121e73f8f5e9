"""A bot that once in a while thinks for longer than any thread cache keeps an idle thread.

Its first decision in each process waits ``PAUSE_S`` (the referee's worker threads go idle and
retire meanwhile), then it plays the first legal move. Used by ``test_idle_bots``."""

from __future__ import annotations

import os
import time

from craits_sdk import Bot, View, run
from craits_sdk.bot import MoveLike

PAUSE_S = float(os.environ.get("IDLE_PAUSE_S", "15"))


class IdleBot(Bot):
    """Pauses at its first decision, then plays its first legal move."""

    paused = False

    def decide(self, view: View) -> MoveLike:
        if not self.paused:
            self.paused = True
            time.sleep(PAUSE_S)
        return view.legal_moves[0]


if __name__ == "__main__":
    run(IdleBot)
