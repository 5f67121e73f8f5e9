"""Intervals and likelihood of superiority from the spread *between deal sets*, with t quantiles.

The deal set is the unit of independent evidence (``docs/ratings.md``), and a tournament often
has few of them, so two things decide whether a printed 95% holds: the variance must be that of
the deal sets (not of games or pairs), and its own uncertainty must be paid for. Here the
covariance of the centred ratings is estimated from the G deal sets in one of two ways:

* ``sandwich``: the cluster-robust variance H⁻¹ (Σ_g u_g u_gᵀ) H⁻¹ · G/(G−1), with H the
  information of the fit and u_g the score (observed minus expected pairwise results) of deal
  set g: what each deal set pulls, read through the fit's curvature;
* ``jackknife``: (G−1)/G · Σ_g (r₋g − r̄)(r₋g − r̄)ᵀ, with r₋g the fit without deal set g.

Intervals are r ± t(G−1) · se and LOS(a > b) = T_{G−1}((r_a − r_b) / se(r_a − r_b)), Student's t
with G − 1 degrees of freedom (the variance is estimated from G units). Below ``min_units`` deal
sets, or when the bots outnumber what the deal sets can separate, there is no honest interval and
the result says so (``enough`` is false): the standings print "not enough games".
``docs/ratings.md`` gives the calibration on real tournaments that chose among these.

A spread of zero is no estimate of the spread: a bot whose every pair ended the same way in every
deal set (all wins, all draws, two deterministic bots trading wins in the same pattern) gets no
interval (``fixed``), since its t interval would be of zero width, or only as wide as the prior
makes it, whatever the truth. ``head_to_head`` is the same method read for one pair, A against
B, as ``craits match`` and ``craits serve`` print it; where every game went A's way it states
the one bound the data do give (module function's doc).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from operator import mul
from typing import Final

from .bradley_terry import (
    DEFAULT_PRIOR,
    PairEntry,
    Tally,
    centre,
    fit,
    information,
    inverse,
    pair_entries,
    scores,
)
from .elo import ELO_PER_NAT, elo_of
from .results import ScoredGame
from .studentt import t_cdf, t_quantile

METHODS: Final = ("sandwich", "jackknife")
MIN_UNITS: Final = 5
"""Deal sets below which no interval is printed, whatever the field (docs/ratings.md)."""
NOT_ENOUGH: Final = "not enough games"
NO_SPREAD: Final = "not enough information"
"""What is printed instead of an interval whose deal sets never differed (module doc)."""

Matrix = list[list[float]]
Units = Collection[Sequence[PairEntry]]
"""Deal sets' pairwise records, one sequence per deal set in deal-set order, as
``deal_set_units`` makes them (or a store's cache keeps them, ``craits.contest.refit``)."""


@dataclass(frozen=True, slots=True)
class RatingIntervals:
    """Point ratings, their intervals, and the likelihood of superiority of each pair."""

    bots: tuple[str, ...]
    ratings: tuple[float, ...]
    """Bradley–Terry ratings (Elo scale, mean 0)."""
    low: tuple[float, ...]
    high: tuple[float, ...]
    los: tuple[tuple[float, ...], ...]
    """``los[i][j]``: probability that bot i is really stronger than bot j; empty when not
    asked for (``unit_ratings(..., superiority=False)``: n² t distributions a board that
    shows no LOS need not pay)."""
    confidence: float
    units: int
    """Deal sets (independent units) behind the intervals."""
    enough: bool
    """False when there were too few deal sets for honest intervals: then ``low``/``high`` are
    the ratings themselves and every LOS is ½."""
    fixed: tuple[bool, ...]
    """``fixed[i]``: every pair of bot i ended the same way in every deal set, so the spread
    between deal sets says nothing about its rating; its ``low``/``high`` are then the rating
    itself and no interval is printed (module doc)."""


def deal_set_units(results: Iterable[ScoredGame], index: dict[str, int]) -> list[list[PairEntry]]:
    """Each deal set's pairwise records, summed per pair, in deal-set order: the independent
    units whose spread every interval here is made from (module doc)."""
    units: dict[tuple[int, int], dict[tuple[int, int], list[float]]] = {}
    for result in results:
        unit = units.setdefault(result.deal_set_key, {})
        for i, j, score, games in pair_entries(result, index):
            acc = unit.setdefault((i, j), [0.0, 0.0])
            acc[0] += score
            acc[1] += games
    return [[(i, j, s, n) for (i, j), (s, n) in units[key].items()] for key in sorted(units)]


def clustered_ratings(
    results: Sequence[ScoredGame],
    bots: Sequence[str],
    confidence: float = 0.95,
    prior: float = DEFAULT_PRIOR,
    method: str = "sandwich",
    min_units: int | None = None,
) -> RatingIntervals:
    """Ratings with ``confidence`` intervals and LOS from the deal sets' spread (module doc)."""
    units = deal_set_units(results, {bot: i for i, bot in enumerate(bots)})
    return unit_ratings(units, bots, confidence, prior, method, min_units)


def unit_ratings(
    units: Units,
    bots: Sequence[str],
    confidence: float = 0.95,
    prior: float = DEFAULT_PRIOR,
    method: str = "sandwich",
    min_units: int | None = None,
    superiority: bool = True,
) -> RatingIntervals:
    """``clustered_ratings`` from the deal sets' pairwise records (``deal_set_units``, by
    index in ``bots``): all the fit reads of the games, so that a caller keeping only these
    gets the same answer without the games."""
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must be between 0 and 1")
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}: choose one of {', '.join(METHODS)}")
    n = len(bots)
    full = Tally(n)
    rates: dict[tuple[int, int], set[float]] = {}  # for ``_fixed``, in the same pass
    for unit in units:
        full.add(unit)
        for i, j, score, weight in unit:
            rates.setdefault((i, j), set()).add(round(score / weight, 9))
    point = fit(full, prior)
    ratings = centre(point)
    g = len(units)
    if g < max(min_units_for(n) if min_units is None else min_units, 2) or n < 2:
        return _not_enough(bots, ratings, confidence, g)
    if method == "sandwich":
        cov = sandwich_covariance(units, full, point, prior)
    else:
        cov = jackknife_covariance(units, full, point, prior)
    df = g - 1
    spread = t_quantile(0.5 + confidence / 2, df)
    fixed = _fixed(rates, n)
    se = [0.0 if still else math.sqrt(max(cov[i][i], 0.0)) for i, still in enumerate(fixed)]
    return RatingIntervals(
        bots=tuple(bots), ratings=tuple(ratings),
        low=tuple(r - spread * s for r, s in zip(ratings, se, strict=True)),
        high=tuple(r + spread * s for r, s in zip(ratings, se, strict=True)),
        los=_superiority(ratings, cov, df) if superiority else (), confidence=confidence,
        units=g, enough=True, fixed=fixed,
    )


def _fixed(rates: dict[tuple[int, int], set[float]], n: int) -> tuple[bool, ...]:
    """For each bot, whether each of its pairs scored the same in every deal set that held it
    (``rates``: each pair's scores per game, one per deal set; a bot in no deal set is not
    fixed: it simply has no results)."""
    fixed = [False] * n
    seen = [False] * n
    for (i, j), values in rates.items():
        for bot in (i, j):
            fixed[bot] = (fixed[bot] or not seen[bot]) and len(values) == 1
            seen[bot] = True
    return tuple(fixed)


def min_units_for(bots: int) -> int:
    """The fewest deal sets that give ``bots`` bots honest intervals: ``MIN_UNITS``, and at
    least twice the free ratings (bots − 1) so that the deal sets' spread can vary in every
    direction the ratings can."""
    return max(MIN_UNITS, 2 * (bots - 1))


def sandwich_covariance(units: Units, full: Tally, point: Sequence[float], prior: float
                        ) -> Matrix:
    """Cluster-robust covariance of the centred ratings (Elo scale), deal sets as clusters.

    The sum over deal sets of the centred pulls' outer products, (C H⁻¹ u_g)(C H⁻¹ u_g)ᵀ (C
    centres a vector to mean 0), is A M Aᵀ with A = C H⁻¹ and M = Σ_g u_g u_gᵀ: one inversion
    and a meat matrix summed over each deal set's few bots, O(G·k² + n³) for G deal sets of k
    bots among n, where a solve and an n×n outer product per deal set cost O(G·n³) (a contest's
    board refitted from 100,000 games would take minutes)."""
    n, g = full.n, len(units)
    theta = [r / ELO_PER_NAT for r in point]
    meat = [[0.0] * n for _ in range(n)]
    for unit in units:
        pull = scores(unit, theta)
        for i, ui in pull.items():
            row = meat[i]
            for j, uj in pull.items():
                row[j] += ui * uj
    spread = inverse(information(full, point, prior))
    means = [sum(column) / n for column in zip(*spread, strict=True)]
    centred = [[v - m for v, m in zip(row, means, strict=True)] for row in spread]
    columns = list(zip(*meat, strict=True))
    left = [[sum(map(mul, row, column)) for column in columns] for row in centred]
    scale = ELO_PER_NAT**2 * g / (g - 1)
    return [[scale * sum(map(mul, row, other)) for other in centred] for row in left]


def jackknife_covariance(units: Units, full: Tally,
                         point: Sequence[float], prior: float) -> Matrix:
    """Delete-one-deal-set jackknife covariance of the centred ratings (Elo scale)."""
    g = len(units)
    refits = []
    for unit in units:
        tally = Tally(full.n)
        tally.wins = list(full.wins)
        tally.games = dict(full.games)
        tally.add((i, j, -s, -w) for i, j, s, w in unit)
        refits.append(centre(fit(tally, prior, start=point)))
    mean = [sum(col) / g for col in zip(*refits, strict=True)]
    deviations = [[r - m for r, m in zip(refit, mean, strict=True)] for refit in refits]
    return _centred_outer(deviations, (g - 1) / g)


def _centred_outer(vectors: Sequence[Sequence[float]], scale: float) -> Matrix:
    """``scale`` · Σ c cᵀ over the vectors, each first centred to mean 0 across bots (so the
    result is the covariance of mean-0 ratings)."""
    centred = [centre(v) for v in vectors]
    n = len(centred[0])
    return [[scale * sum(c[i] * c[j] for c in centred) for j in range(n)] for i in range(n)]


def _superiority(ratings: Sequence[float], cov: Matrix, df: float
                 ) -> tuple[tuple[float, ...], ...]:
    """LOS of i over j: T_df of the difference over its standard error."""
    n = len(ratings)
    rows = []
    for i in range(n):
        row = []
        for j in range(n):
            diff = ratings[i] - ratings[j]
            var = cov[i][i] + cov[j][j] - 2 * cov[i][j] if i != j else 0.0
            if var > 1e-12:
                row.append(t_cdf(diff / math.sqrt(var), df))
            else:
                row.append(0.5 if i == j or abs(diff) < 1e-9 else float(diff > 0))
        rows.append(tuple(row))
    return tuple(rows)


def _not_enough(bots: Sequence[str], ratings: Sequence[float], confidence: float, units: int
                ) -> RatingIntervals:
    n = len(bots)
    return RatingIntervals(
        bots=tuple(bots), ratings=tuple(ratings), low=tuple(ratings), high=tuple(ratings),
        los=tuple(tuple(0.5 for _ in range(n)) for _ in range(n)), confidence=confidence,
        units=units, enough=False, fixed=(False,) * n,
    )


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """A's Elo difference to B from their games together, and what can be said of its range."""

    elo: float
    """A's rating minus B's, Bradley–Terry on their pairwise results (held finite by the prior
    even when A won every game, so read it with ``note``)."""
    low: float | None
    high: float | None
    """The interval's bounds: both for an interval, one for a one-sided bound (A won, or lost,
    every game: nothing bounds it on the other side), neither when nothing honest can be said."""
    units: int
    """Deal sets behind it."""
    note: str
    """How the bounds were made, or why there are none, in words."""

    @property
    def enough(self) -> bool:
        """Whether there is a two-sided interval."""
        return self.low is not None and self.high is not None


def head_to_head(results: Iterable[ScoredGame], a: str, b: str,
                 confidence: float = 0.95) -> HeadToHead:
    """A against B over the games both played, by ``clustered_ratings`` itself: the same fit,
    t interval and minimum of deal sets as a tournament of the two (the calibration's *k2*).

    Each game is read as its one A-B comparison (other seats, at bigger tables, are left out).
    Where every game went A's way the spread is zero and the fit's finite rating is the prior's
    doing, yet the data do bound it from one side: if A took every game of all G deal sets, the
    chance q that A takes every game of a deal set has the Clopper–Pearson lower bound
    ((1 − confidence)/2)^(1/G), the same tail as a two-sided interval's; A's expected score per
    game is at least q (taking one game is likelier than taking them all), so the Elo is at
    least ``elo_of(q)``, whatever the dependence between a deal set's games. No upper bound.
    """
    pairs = [_pair_game(r, a, b) for r in results if a in r.seats and b in r.seats]
    return units_head_to_head(deal_set_units(pairs, {a: 0, b: 1}), a, b, confidence)


def units_head_to_head(units: Units, a: str, b: str, confidence: float = 0.95) -> HeadToHead:
    """``head_to_head`` from the deal sets' records of A (index 0) against B (index 1), each
    game weighing 1: all it reads of the games (``unit_ratings``)."""
    fit = unit_ratings(units, (a, b), confidence)
    elo, g = fit.ratings[0] - fit.ratings[1], fit.units
    pct = f"{round(confidence * 100)}%"
    if not fit.enough:
        return HeadToHead(elo, None, None, g, f"{NOT_ENOUGH} for a {pct} interval: {g} deal "
                          f"set{'' if g == 1 else 's'}, at least {min_units_for(2)} needed")
    if fit.fixed[0]:
        share = (sum(s for unit in units for _, _, s, _ in unit)
                 / sum(w for unit in units for _, _, _, w in unit))
        if share in (0.0, 1.0):
            bound = elo_of(((1.0 - confidence) / 2) ** (1.0 / g))
            winner, side, other = (a, "lower", "above") if share == 1.0 else (b, "upper", "below")
            note = (f"{pct} {side} bound, none {other}: {winner} won every game of all {g} deal "
                    "sets")
            if share == 1.0:
                return HeadToHead(elo, bound, None, g, note)
            return HeadToHead(elo, None, -bound, g, note)
        return HeadToHead(elo, None, None, g, f"{NO_SPREAD} for an interval: every one of the "
                          f"{g} deal sets ended the same ({a} scoring {share:.3f}), so their "
                          "spread is unknown")
    # Two centred ratings: r_b = −r_a, so the difference's interval is a's bounds less b's.
    return HeadToHead(elo, fit.low[0] - fit.high[1], fit.high[0] - fit.low[1], g,
                      f"{pct} interval from the spread between {g} deal sets (t quantiles)")


def _pair_game(result: ScoredGame, a: str, b: str) -> ScoredGame:
    """``result`` read as A's and B's game alone: their seats and places, nothing else."""
    i, j = result.seats.index(a), result.seats.index(b)
    return ScoredGame(result.game_index, result.meeting_index, result.deal_set, result.rotation,
                      (a, b), (result.totals[i], result.totals[j]),
                      (result.places[i], result.places[j]))
