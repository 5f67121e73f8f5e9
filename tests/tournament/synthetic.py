"""Synthetic tournaments: finishes drawn from a Plackett–Luce model with known ratings.

Plackett–Luce picks the winner of a table with probability proportional to 10^(rating/400), then
the next place among the rest the same way. Every pair's order then follows Bradley–Terry with the
same ratings (Luce's choice axiom), so the true ratings are what ``bradley_terry`` must recover.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence

from craits.ratings.results import ScoredGame


def plackett_luce_places(strengths: Sequence[float], rng: random.Random) -> tuple[int, ...]:
    """Places (1 = best) of one finish with the given Elo-scale strengths."""
    left = list(range(len(strengths)))
    places = [0] * len(strengths)
    for place in range(1, len(strengths) + 1):
        weights = [10 ** (strengths[s] / 400) for s in left]
        seat = rng.choices(left, weights=weights)[0]
        left.remove(seat)
        places[seat] = place
    return tuple(places)


def round_robin(
    truth: Mapping[str, float], table_size: int, deal_sets: int, seed: int,
    only: str | None = None,
) -> list[ScoredGame]:
    """A rotations round robin of ``truth``'s bots with Plackett–Luce finishes (seeded); with
    ``only``, a gauntlet: just the meetings that hold that bot."""
    rng = random.Random(seed)
    bots = list(truth)
    meetings = [m for m in itertools.combinations(bots, table_size) if only in (None, *m)]
    out: list[ScoredGame] = []
    for deal_set in range(deal_sets):
        for m, meeting in enumerate(meetings):
            for r in range(table_size):
                seats = tuple(meeting[(s + r) % table_size] for s in range(table_size))
                places = plackett_luce_places([truth[b] for b in seats], rng)
                out.append(ScoredGame(len(out), m, deal_set, r, seats, places, places))
    return out


def spread_ratings(n: int, step: float) -> dict[str, float]:
    """``n`` bots ``step`` Elo apart, centred on 0."""
    return {f"bot{i}": (i - (n - 1) / 2) * step for i in range(n)}
