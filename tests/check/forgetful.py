"""A bot (on the SDK) that never announces "one card": legal answers that the referee penalises.

``craits check`` must fail exactly the positions where the announcement is due.
"""

from __future__ import annotations

from craits.engine import Move
from craits_sdk import Bot, View, run


class Forgetful(Bot):
    """Plays the first legal move with the announcement stripped."""

    name = "forgetful"

    def decide(self, view: View) -> Move:
        """The first legal move, never announced."""
        return view.legal_moves[0].announced(False)


if __name__ == "__main__":
    run(Forgetful)
