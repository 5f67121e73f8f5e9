"""Head-to-head wins, losses and draws of every two bots, for the crosstable.

The crosstable of ``stats`` keeps a pair's pairwise score (1, ½ or 0 a game); a reader used to
cutechess wants the count of each, which this keeps apart: A "wins" a game against B when it
finished ahead of B at their table, draws when they shared a place.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .results import ScoredGame


@dataclass(frozen=True, slots=True)
class WinLossDraw:
    """A's games against B, counted by how A finished relative to B."""

    wins: int = 0
    losses: int = 0
    draws: int = 0

    @property
    def games(self) -> int:
        """Games in which both sat at the table."""
        return self.wins + self.losses + self.draws

    def add(self, score: float) -> WinLossDraw:
        """This record with one more game of pairwise ``score`` (1, 0.5 or 0)."""
        return WinLossDraw(self.wins + (score == 1.0), self.losses + (score == 0.0),
                           self.draws + (score == 0.5))

    def __str__(self) -> str:
        """``W-L-D``, the cutechess order."""
        return f"{self.wins}-{self.losses}-{self.draws}"


def pair_records(results: Iterable[ScoredGame], bots: Sequence[str]
                 ) -> dict[str, dict[str, WinLossDraw]]:
    """``table[a][b]``: a's W-L-D against b (a's row reads as its results)."""
    table = {a: {b: WinLossDraw() for b in bots if b != a} for a in bots}
    for result in results:
        for a, b, score in result.pairs():
            table[a][b] = table[a][b].add(score)
            table[b][a] = table[b][a].add(1.0 - score)
    return table
