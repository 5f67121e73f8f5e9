"""Plackett–Luce on whole finishing orders: the alternative the ratings were measured against.

Research code, kept beside the benchmark that measures it (the standings never use it).

Plackett–Luce draws the winner of a table with probability proportional to γ_i = e^θ_i, then
second place among the rest the same way, and so on. ``fit`` maximises its likelihood (with a
weak gamma prior, the counterpart of Bradley–Terry's virtual drawn games, so that an unbeaten bot
stays finite) by Hunter's minorise–maximise iteration: each step sets γ_i to i's wins of a stage
over the sum, across the stages i took part in, of 1 / (the γ of everyone still in the stage),
and never lowers the likelihood.

Places may be shared (equal totals). A shared place says the order inside it is unknown, so the
probability of a finish is the sum over the orders its ties allow; fitting gives each allowed
order an equal share of the game. ``multiplayer_models.py`` compares the two models'
predictions on held-out deal sets; docs/ratings.md records the result and why the standings
keep Bradley–Terry.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from typing import Final

from craits.ratings.elo import ELO_PER_NAT
from craits.ratings.results import ScoredGame

DEFAULT_PRIOR: Final = 1.0
Order = tuple[float, tuple[int, ...]]
"""``(weight, bot indices best first)``: one strict finishing order."""


def strict_orders(result: ScoredGame, index: dict[str, int]) -> list[Order]:
    """The strict orders a finish allows (ties in any order), sharing the game's weight 1."""
    blocks: dict[int, list[int]] = {}
    for bot, place in zip(result.seats, result.places, strict=True):
        blocks.setdefault(place, []).append(index[bot])
    options = [list(itertools.permutations(blocks[p])) for p in sorted(blocks)]
    orders = [tuple(i for block in combo for i in block) for combo in itertools.product(*options)]
    return [(1.0 / len(orders), order) for order in orders]


def fit(orders: Iterable[Order], n: int, prior: float = DEFAULT_PRIOR,
        iterations: int = 5000) -> list[float]:
    """The penalised maximum-likelihood strengths of ``n`` bots, Elo scale, centred."""
    orders = list(orders)
    wins = [prior / 2] * n  # the gamma prior: shape 1 + prior/2, rate prior/2 (mode γ = 1)
    for weight, order in orders:
        for i in order[:-1]:
            wins[i] += weight
    gamma = [1.0] * n
    for _ in range(iterations):
        denominators = [prior / 2] * n
        for weight, order in orders:
            tail = 0.0
            suffix = []
            for i in reversed(order):
                tail += gamma[i]
                suffix.append(tail)
            suffix.reverse()
            share = 0.0
            for stage in range(len(order) - 1):
                share += weight / suffix[stage]
                denominators[order[stage]] += share
            denominators[order[-1]] += share
        new = [w / d for w, d in zip(wins, denominators, strict=True)]
        change = max(abs(math.log(a / b)) for a, b in zip(new, gamma, strict=True))
        gamma = new
        if change < 1e-10:
            break
    theta = [math.log(g) * ELO_PER_NAT for g in gamma]
    mean = sum(theta) / n
    return [t - mean for t in theta]


def plackett_luce(results: Iterable[ScoredGame], bots: Sequence[str],
                  prior: float = DEFAULT_PRIOR) -> dict[str, float]:
    """Plackett–Luce ratings (Elo scale, mean 0) of ``bots`` from their finishes."""
    index = {bot: i for i, bot in enumerate(bots)}
    orders = [o for r in results for o in strict_orders(r, index)]
    return dict(zip(bots, fit(orders, len(bots), prior), strict=True))


def finish_log_likelihood(result: ScoredGame, ratings: dict[str, float]) -> float:
    """log P(this finish) under Plackett–Luce with ``ratings``: the orders its ties allow,
    summed."""
    index = {bot: i for i, bot in enumerate(result.seats)}
    gamma = [math.exp(ratings[bot] / ELO_PER_NAT) for bot in result.seats]
    total = 0.0
    for _, order in strict_orders(result, index):
        p, left = 1.0, sum(gamma)
        for i in order[:-1]:
            p *= gamma[i] / left
            left -= gamma[i]
        total += p
    return math.log(total)
