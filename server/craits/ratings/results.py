"""What one finished game contributes to the standings, independent of how it is stored.

Ratings and statistics are pure functions over a list of ``ScoredGame`` values, so they can be
tested on synthetic results and recomputed from the store at any time. A multiplayer finish is
read as its pairwise results: for every two seats, the better place scores 1, equal places score
0.5 each.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ScoredGame:
    """The outcome of one scheduled game, seat by seat: all the ratings read of it (named for
    that, beside the referee's ``PlayedGame``, the whole record of a game as it was played)."""

    game_index: int
    meeting_index: int
    deal_set: int
    rotation: int
    seats: tuple[str, ...]
    """The bot at each seat."""
    totals: tuple[int, ...]
    """Final score per seat (lower is better)."""
    places: tuple[int, ...]
    """Place per seat: 1 is best, equal totals share a place, a forfeited seat is last."""
    strikes: tuple[int, ...] = ()
    forfeited: tuple[bool, ...] = ()

    def __post_init__(self) -> None:
        n = len(self.seats)
        if n < 2 or len(self.totals) != n or len(self.places) != n:
            raise ValueError(f"game {self.game_index}: seats, totals and places must align (n ≥ 2)")
        if len(set(self.seats)) != n:
            raise ValueError(f"game {self.game_index}: a bot holds two seats")

    @property
    def deal_set_key(self) -> tuple[int, int]:
        """(meeting, deal set): the games sharing their cards, resampled together."""
        return (self.meeting_index, self.deal_set)

    def pairs(self) -> Iterator[tuple[str, str, float]]:
        """``(a, b, score of a against b)`` for every two seats, seat order."""
        places = self.places
        for i, a in enumerate(self.seats):
            for j in range(i + 1, len(self.seats)):
                yield a, self.seats[j], pair_score(places[i], places[j])


def pair_score(place_a: int, place_b: int) -> float:
    """A's score against B from their places: 1 ahead, 0.5 tied, 0 behind."""
    if place_a < place_b:
        return 1.0
    return 0.5 if place_a == place_b else 0.0
