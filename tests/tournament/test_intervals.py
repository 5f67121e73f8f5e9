"""Deal-set intervals with t quantiles, on synthetic tournaments with known ratings."""

from __future__ import annotations

import math

import pytest

from craits.ratings.bradley_terry import Tally, centre, fit, information, solve
from craits.ratings.elo import ELO_PER_NAT
from craits.ratings.intervals import (
    MIN_UNITS,
    clustered_ratings,
    deal_set_units,
    head_to_head,
    min_units_for,
    sandwich_covariance,
)
from craits.ratings.results import ScoredGame
from craits.ratings.studentt import t_cdf, t_quantile

from .synthetic import round_robin, spread_ratings


@pytest.mark.parametrize(("df", "q975"), [(1, 12.7062), (2, 4.3027), (4, 2.7764), (9, 2.2622),
                                          (29, 2.0452), (math.inf, 1.9600)])
def test_t_quantiles_match_the_tables(df: float, q975: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(q975, abs=1e-4)
    assert t_quantile(0.025, df) == pytest.approx(-q975, abs=1e-4)
    assert t_cdf(q975, df) == pytest.approx(0.975, abs=1e-5)
    assert t_cdf(0.0, df) == 0.5


def test_intervals_hold_the_rating_and_los_is_consistent() -> None:
    truth = spread_ratings(4, 150)
    bots = list(truth)
    result = clustered_ratings(round_robin(truth, 3, 10, seed=2), bots)
    assert result.enough and result.units == 10 * 4
    for low, rating, high in zip(result.low, result.ratings, result.high, strict=True):
        assert low < rating < high
    for i in range(4):
        assert result.los[i][i] == 0.5
        for j in range(4):
            if i != j:
                assert result.los[i][j] + result.los[j][i] == pytest.approx(1.0)
    assert result.los[3][0] > 0.99


def test_the_jackknife_agrees_with_the_sandwich() -> None:
    truth = spread_ratings(3, 80)
    results = round_robin(truth, 3, 30, seed=5)
    sandwich = clustered_ratings(results, list(truth), method="sandwich")
    jackknife = clustered_ratings(results, list(truth), method="jackknife")
    for a, b in zip(sandwich.high, jackknife.high, strict=True):
        assert a == pytest.approx(b, rel=0.1)


def test_the_sandwich_is_its_definition_summed_deal_set_by_deal_set() -> None:
    """The covariance from one inversion and a meat matrix is the cluster-robust sum written
    out: each deal set's centred pull H⁻¹ u_g, solved alone, outer-multiplied and summed."""
    truth = spread_ratings(5, 120)
    bots = list(truth)
    units = deal_set_units(round_robin(truth, 3, 12, seed=4), {b: i for i, b in enumerate(bots)})
    full = Tally(len(bots))
    for unit in units:
        full.add(unit)
    point = fit(full)
    bread = information(full, point)
    theta = [r / ELO_PER_NAT for r in point]
    pulls = []
    for unit in units:
        u = [0.0] * len(bots)
        for i, j, score, games in unit:
            residual = score - games / (1 + math.exp(theta[j] - theta[i]))
            u[i] += residual
            u[j] -= residual
        pulls.append(centre(solve(bread, u)))
    g = len(units)
    scale = ELO_PER_NAT**2 * g / (g - 1)
    written_out = [[scale * sum(p[i] * p[j] for p in pulls) for j in range(len(bots))]
                   for i in range(len(bots))]
    fast = sandwich_covariance(units, full, point, 1.0)
    for row, expected in zip(fast, written_out, strict=True):
        assert row == pytest.approx(expected, rel=1e-9, abs=1e-9)
    assert all(written_out[i][i] > 1.0 for i in range(len(bots)))


def test_too_few_deal_sets_give_no_interval() -> None:
    truth = spread_ratings(3, 80)
    few = clustered_ratings(round_robin(truth, 3, MIN_UNITS - 1, seed=1), list(truth))
    assert not few.enough and few.low == few.ratings == few.high
    assert all(v == 0.5 for row in few.los for v in row)
    assert clustered_ratings(round_robin(truth, 3, MIN_UNITS, seed=1), list(truth)).enough
    assert min_units_for(3) == MIN_UNITS and min_units_for(8) == 14


@pytest.mark.parametrize(("deal_sets", "method"), [(5, "sandwich"), (40, "sandwich"),
                                                   (5, "jackknife")])
def test_intervals_cover_the_truth_at_about_the_stated_rate(deal_sets: int, method: str) -> None:
    """Over repeated tournaments, 95% intervals hold the true rating about 95% of the time, with
    few deal sets as with many (here finishes are independent given the ratings)."""
    truth = spread_ratings(3, 70)
    bots = list(truth)
    covered = total = 0
    for trial in range(100):
        result = clustered_ratings(round_robin(truth, 3, deal_sets, seed=2000 + trial), bots,
                                   method=method)
        for i, bot in enumerate(bots):
            covered += result.low[i] <= truth[bot] <= result.high[i]
            total += 1
    assert 0.9 <= covered / total <= 0.99, covered / total


def test_unknown_method_and_bad_confidence_are_refused() -> None:
    results = round_robin(spread_ratings(2, 10), 2, 6, seed=1)
    with pytest.raises(ValueError, match="unknown method"):
        clustered_ratings(results, ["bot0", "bot1"], method="magic")
    with pytest.raises(ValueError, match="confidence"):
        clustered_ratings(results, ["bot0", "bot1"], confidence=1.5)


def _pair_games(deal_sets: int, places: list[tuple[int, int]]) -> list[ScoredGame]:
    """Two bots, ``len(places)`` seatings a deal set, every deal set ending as ``places``."""
    k = len(places)
    return [ScoredGame(d * k + s, 0, d, s, ("a", "b") if s % 2 == 0 else ("b", "a"), (1, 2),
                       places[s] if s % 2 == 0 else places[s][::-1])
            for d in range(deal_sets) for s in range(k)]


@pytest.mark.parametrize("places", [[(1, 1), (1, 1)], [(1, 2), (2, 1)], [(1, 2), (1, 2)]],
                         ids=["all-draws", "split-1-1", "all-wins"])
def test_deal_sets_that_never_differ_give_no_interval(places: list[tuple[int, int]]) -> None:
    """Zero spread between deal sets estimates no spread: the sandwich gave [0, 0] for all
    draws and a prior-sized interval for all wins; now both bots are ``fixed``, with no width."""
    result = clustered_ratings(_pair_games(10, places), ["a", "b"])
    assert result.enough and result.fixed == (True, True)
    assert result.low == result.ratings == result.high


def test_one_fixed_bot_leaves_the_others_intervals() -> None:
    """A bot that beats everyone every time gets no interval; the others still get theirs."""
    truth = spread_ratings(3, 80)
    results = round_robin(truth, 2, 10, seed=4)
    bots = [*truth, "ace"]
    for deal_set in range(10):  # a meeting of its own per opponent, won from either seat
        for m, other in enumerate(truth, start=10):
            for side, seats in enumerate([("ace", other), (other, "ace")]):
                results.append(ScoredGame(len(results), m, deal_set, side, seats, (0, 9),
                                          (1, 2) if side == 0 else (2, 1)))
    fit = clustered_ratings(results, bots)
    assert fit.enough and fit.fixed == (False, False, False, True)
    assert fit.low[3] == fit.ratings[3] == fit.high[3]
    assert all(fit.low[i] < fit.ratings[i] < fit.high[i] for i in range(3))


def test_head_to_head_is_the_tournaments_interval_for_two_bots() -> None:
    """``craits match`` and a tournament of the same games give the same numbers."""
    games = _pair_games(8, [(1, 2), (2, 1)])[:-4] + _pair_games(8, [(1, 2), (1, 2)])[-4:]
    fit = clustered_ratings(games, ["a", "b"])
    pair = head_to_head(games, "a", "b")
    assert pair.enough and pair.units == 8 and not any(fit.fixed)
    assert pair.elo == pytest.approx(fit.ratings[0] - fit.ratings[1])
    assert pair.low == pytest.approx(fit.low[0] - fit.high[1])
    assert pair.high == pytest.approx(fit.high[0] - fit.low[1])
    assert pair.note == "95% interval from the spread between 8 deal sets (t quantiles)"
    few = head_to_head(games[:8], "a", "b")
    assert (few.low, few.high, few.units) == (None, None, 4)
