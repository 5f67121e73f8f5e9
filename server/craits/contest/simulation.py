"""Deal sets between versions of known strength, simulated: what the matchmaker is measured on.

A contest cannot tell whether its matchmaker finds the true order, since nobody knows it; a
simulation can. Each version has a true strength (Elo scale); a game's finish is drawn from
Plackett–Luce (the winner with probability proportional to e^θ, then second among the rest, and
so on: the model under which every pair follows Bradley–Terry with the same strengths,
``docs/ratings.md``), by adding a Gumbel draw to each strength and sorting. A deal set plays its
table once per cyclic seating, as the contest does; ``luck`` (Elo, the spread of what the cards
of one seat are worth in one deal) adds the same value to whoever holds that seat in every
seating, so duplicate dealing cancels it over the deal set as it does in real games.

Used by ``benchmarks/matchmaking_bench.py`` and the matchmaker's tests; pure, seeded.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence

from craits.ratings.elo import ELO_PER_NAT
from craits.ratings.results import ScoredGame


def play_deal_set(table: Sequence[str], strength: Mapping[str, float], rng: random.Random,
                  deal_set: int, first_game: int, luck: float = 0.0) -> list[ScoredGame]:
    """One deal set of ``table``: a game per cyclic seating, numbered from ``first_game``."""
    k = len(table)
    cards = [rng.gauss(0.0, luck) if luck > 0 else 0.0 for _ in range(k)]
    games = []
    for rotation in range(k):
        seats = tuple(table[(s + rotation) % k] for s in range(k))
        drawn = [(strength[v] + cards[s]) / ELO_PER_NAT - math.log(-math.log(rng.random()))
                 for s, v in enumerate(seats)]
        order = sorted(range(k), key=lambda s: -drawn[s])
        places = [0] * k
        for place, s in enumerate(order, start=1):
            places[s] = place
        games.append(ScoredGame(
            game_index=first_game + rotation, meeting_index=0, deal_set=deal_set,
            rotation=rotation, seats=seats, totals=tuple(10 * p for p in places),
            places=tuple(places)))
    return games


def kendall_tau(estimate: Mapping[str, float], truth: Mapping[str, float]) -> float:
    """Kendall's tau between two ratings of the same versions (ties in either count as
    neither concordant nor discordant)."""
    ids = sorted(truth)
    score = 0
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            product = (estimate[a] - estimate[b]) * (truth[a] - truth[b])
            score += (product > 0) - (product < 0)
    pairs = len(ids) * (len(ids) - 1) // 2
    return score / pairs if pairs else 1.0


def top_exact(estimate: Mapping[str, float], truth: Mapping[str, float], k: int = 3) -> bool:
    """Whether the estimate's first ``k`` versions are the true first ``k``, in order."""
    def best(r: Mapping[str, float]) -> list[str]:
        return sorted(r, key=lambda v: (-r[v], v))[:k]
    return best(estimate) == best(truth)
