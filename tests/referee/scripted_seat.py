"""A seat that takes the time a test scripts for each decision, on trio's (virtual) clock, for
the tests of the referee's move clock and of the seats' times."""

from __future__ import annotations

from collections.abc import Callable

import trio

from craits.engine import Move
from craits.referee.seats import Decision, Seat, Table


class ScriptedSeat(Seat):
    """Takes ``delay(decision_number)`` seconds (trio time), then plays the first legal move;
    notes the bank it is asked with each time."""

    def __init__(self, name: str, delay: Callable[[int], float]) -> None:
        self.name = name
        self._delay = delay
        self.asked = 0
        self.banks: list[float] = []

    async def start(self, table: Table, seat: int) -> None:
        self.asked = 0

    async def decide(self, decision: Decision) -> Move:
        self.asked += 1
        self.banks.append(decision.clock.bank_ms)
        delay = self._delay(self.asked)
        if delay:
            await trio.sleep(delay)
        else:
            await trio.lowlevel.checkpoint()
        return decision.legal[0]
