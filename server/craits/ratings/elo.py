"""Online multiplayer Elo: a live rating, updated after every game.

A finish of N players counts as its N(N−1)/2 pairwise results. Each bot's change is
``K/(N−1) · Σ (score − expected)`` over its N−1 opponents, all computed from the ratings before the
game. Scaling K by 1/(N−1) makes one game move a rating about as much as one two-player game
would, whatever the table size, and keeps the sum of all ratings constant (the field mean stays at
its start, 0). Online Elo depends on the order of games; final standings replay it in schedule
order so they do not depend on which table finished first. The final, order-free ratings are
``bradley_terry``'s.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Final

from .results import ScoredGame, pair_score

ELO_PER_NAT: Final = 400.0 / math.log(10.0)
"""Elo points per unit of natural-log strength: a 400-point gap is odds of 10 to 1."""

DEFAULT_K: Final = 16.0
MAX_ELO: Final = 1000.0
"""Where ``elo_of`` clips: a score of exactly 0 or 1 has no finite Elo."""


def expected_score(diff: float) -> float:
    """Expected pairwise score of a player ``diff`` Elo points above its opponent."""
    return 1.0 / (1.0 + math.pow(10.0, -diff / 400.0))


def elo_of(score: float) -> float:
    """The Elo difference whose expected score is ``score``: the inverse of ``expected_score``,
    clipped to ±``MAX_ELO`` because a score of 0 or 1 corresponds to no finite difference. The
    one copy of this conversion, shared by the SPRT's summary and the match score."""
    if score <= 0.0 or score >= 1.0:
        return math.copysign(MAX_ELO, score - 0.5)
    return max(-MAX_ELO, min(MAX_ELO, -400.0 * math.log10(1.0 / score - 1.0)))


class OnlineElo:
    """Ratings that change after each game; every bot starts at 0."""

    def __init__(self, bots: Iterable[str] = (), k: float = DEFAULT_K) -> None:
        self.k = k
        self.ratings: dict[str, float] = dict.fromkeys(bots, 0.0)

    def update(self, seats: Sequence[str], places: Sequence[int]) -> dict[str, float]:
        """Apply one finish (bot per seat, place per seat); returns each bot's change."""
        n = len(seats)
        before = [self.ratings.setdefault(bot, 0.0) for bot in seats]
        step = self.k / (n - 1)
        deltas: dict[str, float] = {}
        for i, bot in enumerate(seats):
            total = sum(
                pair_score(places[i], places[j]) - expected_score(before[i] - before[j])
                for j in range(n) if j != i
            )
            deltas[bot] = step * total
        for bot, delta in deltas.items():
            self.ratings[bot] += delta
        return deltas

    def add(self, result: ScoredGame) -> dict[str, float]:
        """Apply one stored game."""
        return self.update(result.seats, result.places)


def online_elo(
    results: Iterable[ScoredGame], bots: Iterable[str] = (), k: float = DEFAULT_K
) -> dict[str, float]:
    """The online ratings after replaying ``results`` in schedule (game index) order."""
    elo = OnlineElo(bots, k)
    for result in sorted(results, key=lambda r: r.game_index):
        elo.add(result)
    return elo.ratings
