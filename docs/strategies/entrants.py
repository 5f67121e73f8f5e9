"""The strategy study's ``ismcts`` budgets as in-process bots (``docs/strategies.md``).

A tournament's ``python = "module:Class"`` bot is made with no arguments, and the tournament's
directory is on the import path, so each budget is a class here. The study counts iterations,
not milliseconds: on a machine shared with other work a clock would measure the load as much as
the bot, and a fixed count makes every game replay exactly. An iteration costs more the more
players there are, so the count that buys about 100 ms of CPU a decision depends on the table
size. The counts are the previous study's (600, 500 and 320, measured at 104, 111 and 106 ms),
scaled by what a cheaper ``Game.clone`` and sampler saved since, measured as the time of the
new count against the old on the same positions in alternated runs (``docs/strategies.md``).
"""

from __future__ import annotations

from typing import ClassVar

from craits.engine import Move
from craits_bots.ismcts import IsmctsBot
from craits_sdk import View


class _ByTableSize(IsmctsBot):
    """An ``ismcts`` whose fixed iteration count is looked up by the table's size."""

    ITERATIONS: ClassVar[dict[int, int]] = {}

    def __init__(self) -> None:
        super().__init__(iterations=max(self.ITERATIONS.values()))

    def decide(self, view: View) -> Move:
        self.iterations = self.ITERATIONS[view.players]
        return super().decide(view)


class Ismcts100ms(_ByTableSize):
    """About 100 ms of CPU a decision with a choice on the study's machine."""

    name = "ismcts-100ms"
    ITERATIONS: ClassVar[dict[int, int]] = {2: 830, 3: 680, 4: 380}


class Ismcts25ms(_ByTableSize):
    """A quarter of ``Ismcts100ms``'s iterations."""

    name = "ismcts-25ms"
    ITERATIONS: ClassVar[dict[int, int]] = {2: 210, 3: 170, 4: 95}
