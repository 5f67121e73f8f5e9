"""A bot that once in a while thinks for longer than any thread cache keeps an idle thread.

Its first decision at seat 0 in each process waits ``PAUSE_S`` (the referee's worker threads go
idle and retire meanwhile), then it plays the first legal move. One pause a game is enough: the
other seat's sandbox, waiting for its turn, lives through the same idle spell; a pause at each
seat would only double the wait. Used by ``test_idle_bots``."""

from __future__ import annotations

import os
import time

from craits_sdk import Bot, View, run
from craits_sdk.bot import MoveLike

PAUSE_S = float(os.environ.get("IDLE_PAUSE_S", "15"))


class IdleBot(Bot):
    """Pauses at its first decision at seat 0, then plays its first legal move."""

    paused = False

    def decide(self, view: View) -> MoveLike:
        if not self.paused and view.seat == 0:
            self.paused = True
            time.sleep(PAUSE_S)
        return view.legal_moves[0]


if __name__ == "__main__":
    run(IdleBot)
