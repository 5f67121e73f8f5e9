"""Misbehaving SDK bots for the in-process lane's tests (named as ``python = "module:Class"``)."""

from __future__ import annotations

import time

from craits.engine.cards import CARDS
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
