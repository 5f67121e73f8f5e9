"""The strategy study's two ``ismcts`` budgets as in-process bots (``docs/strategies.md``).

A tournament's ``python = "module:Class"`` bot is made with no arguments, and the tournament's
directory is on the import path, so each budget is a class here. The study counts iterations,
not milliseconds: on a machine shared with other work a clock would measure the load as much as
the bot, and a fixed count makes every game replay exactly.
"""

from __future__ import annotations

from craits_bots.ismcts import IsmctsBot


class Ismcts300(IsmctsBot):
    """300 iterations a searched decision: about 100 ms of CPU on the study's machine."""

    name = "ismcts-300"

    def __init__(self) -> None:
        super().__init__(iterations=300)


class Ismcts75(IsmctsBot):
    """75 iterations a searched decision: a quarter of the budget."""

    name = "ismcts-75"

    def __init__(self) -> None:
        super().__init__(iterations=75)
