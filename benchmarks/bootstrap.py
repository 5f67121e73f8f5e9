"""Intervals and likelihood of superiority by a bootstrap over whole deal sets: research code.

The pairwise results inside one game are not independent (one bad hand loses to everybody), and
the games of one deal set share their cards; treating every pair as an independent observation
would make intervals far too narrow. The independent units are the deal sets, so the bootstrap
draws deal sets with replacement (as many as there are), refits Bradley–Terry to each resample,
and reads percentile intervals off the refitted ratings. Each deal set's pairs are summed once up
front and each refit starts from the full-data fit, so a resample costs a few small Newton steps.

The standings do not use it: measured on real tournaments (``calibration.py``, docs/ratings.md)
its intervals run short with few deal sets, where ``craits.ratings.intervals``' sandwich with t
quantiles holds. It lives here, beside the benchmark that measures it, as the alternative that
was measured; it answers in the standings' own ``RatingIntervals`` so the two compare field by
field, and takes its deal sets and its normal law from the package (``deal_set_units``,
``t_cdf`` with infinite degrees of freedom) so that nothing statistical is written twice.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Final

from craits.ratings.bradley_terry import DEFAULT_PRIOR, Tally, centre, fit
from craits.ratings.intervals import RatingIntervals, deal_set_units
from craits.ratings.results import ScoredGame
from craits.ratings.studentt import t_cdf

DEFAULT_RESAMPLES: Final = 200


def bootstrap_ratings(
    results: Sequence[ScoredGame],
    bots: Sequence[str],
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
    prior: float = DEFAULT_PRIOR,
) -> RatingIntervals:
    """Ratings with ``confidence`` intervals from ``resamples`` deal-set resamples (seeded).

    ``enough`` says whether there was anything to resample (with no deal sets the bounds are
    the ratings); no bot is ``fixed``, since the bootstrap prints an interval for every bot,
    even one of zero width: that is one of the things the calibration measures."""
    if not 0.0 < confidence < 1.0 or resamples < 0:
        raise ValueError("confidence must be between 0 and 1, resamples at least 0")
    index = {bot: i for i, bot in enumerate(bots)}
    units = deal_set_units(results, index)
    full = Tally(len(bots))
    for unit in units:
        full.add(unit)
    point = fit(full, prior)
    rng = random.Random(seed)
    samples: list[list[float]] = []
    for _ in range(resamples if units else 0):
        tally = Tally(len(bots))
        for unit in rng.choices(units, k=len(units)):
            tally.add(unit)
        samples.append(centre(fit(tally, prior, start=point)))
    point = centre(point)
    low, high = _percentile_bounds(samples, point, confidence, _widening(len(units)))
    return RatingIntervals(
        bots=tuple(bots), ratings=tuple(point), low=low, high=high,
        los=_superiority(samples, point), confidence=confidence, units=len(units),
        enough=bool(samples), fixed=(False,) * len(bots),
    )


def _percentile_bounds(samples: list[list[float]], point: Sequence[float], confidence: float,
                       widening: float = 1.0) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Per bot, the (1−c)/2 and (1+c)/2 quantiles of its resampled ratings, each moved away
    from the point estimate by the factor ``widening`` (never towards it: with few, lopsided
    deal sets the point can fall outside its quantiles, and then that bound stays)."""
    if not samples:
        return tuple(point), tuple(point)
    tail = (1.0 - confidence) / 2
    low, high = [], []
    for i, centre_i in enumerate(point):
        column = sorted(s[i] for s in samples)
        lo, hi = _quantile(column, tail), _quantile(column, 1.0 - tail)
        low.append(min(lo, centre_i - widening * (centre_i - lo)))
        high.append(max(hi, centre_i + widening * (hi - centre_i)))
    return tuple(low), tuple(high)


def _widening(units: int) -> float:
    """√(n/(n−1)) for ``n`` resampled deal sets: a bootstrap's spread is that much narrower
    than the estimator's (its variance is (n−1)/n of the true one), which matters with few deal
    sets (docs/ratings.md gives the coverage measured with and without it)."""
    return math.sqrt(units / (units - 1)) if units > 1 else 1.0


def _quantile(ordered: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default)."""
    pos = q * (len(ordered) - 1)
    below = math.floor(pos)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (pos - below)


def _superiority(samples: list[list[float]], point: Sequence[float]
                 ) -> tuple[tuple[float, ...], ...]:
    """LOS of i over j: Φ(difference / bootstrap standard error of the difference)."""
    n = len(point)
    rows = []
    for i in range(n):
        row = []
        for j in range(n):
            diff = point[i] - point[j]
            se = _spread([s[i] - s[j] for s in samples]) if i != j else 0.0
            row.append(t_cdf(diff / se, math.inf) if se > 0 else 0.5 + 0.5 * _sign(diff))
        rows.append(tuple(row))
    return tuple(rows)


def _spread(values: Sequence[float]) -> float:
    """Sample standard deviation (0 for fewer than two values)."""
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


def _sign(x: float) -> float:
    return (x > 0) - (x < 0)

