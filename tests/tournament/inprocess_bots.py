"""Misbehaving SDK bots for the in-process lane's tests (named as ``python = "module:Class"``)."""

from __future__ import annotations

import os
import signal
import time

from craits.engine import Move
from craits.engine.cards import CARDS
from craits_bots.greedy import GreedyBot
from craits_sdk import Bot, MoveLike, View

SLOW_S = 0.5
"""How long ``Slow`` takes over each decision: well over the test's 200 ms move limit."""


class Raiser(Bot):
    """``decide`` raises: a bug in the bot."""

    def decide(self, view: View) -> MoveLike:
        raise RuntimeError("boom")


class Illegal(Bot):
    """Names a card it does not hold, every time."""

    def decide(self, view: View) -> MoveLike:
        missing = next(card for card in CARDS if card not in view.hand)
        return f"play {missing}"


class Slow(Bot):
    """Thinks too long on every move (Python cannot be stopped mid-call)."""

    def decide(self, view: View) -> MoveLike:
        time.sleep(SLOW_S)
        return 0


class NotABot:
    """Not a ``craits_sdk.Bot``."""


class DiesOnce(GreedyBot):
    """Greedy, but the first decision after ``$KILL_ONCE`` names a file kills its whole process
    (a worker, as kill -9 would), once: it removes the file first."""

    def decide(self, view: View) -> Move:
        marker = os.environ.get("KILL_ONCE", "")
        if marker and os.path.exists(marker):
            os.unlink(marker)
            os.kill(os.getpid(), signal.SIGKILL)
        return super().decide(view)
