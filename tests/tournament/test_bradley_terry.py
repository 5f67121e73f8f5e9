"""Bradley–Terry ratings and deal-set bootstrap intervals on synthetic results of known strength."""

from __future__ import annotations

import math

import pytest

from craits.ratings.bootstrap import _percentile_bounds, _widening, bootstrap_ratings
from craits.ratings.bradley_terry import bradley_terry
from craits.ratings.results import GameResult

from .synthetic import round_robin, spread_ratings


def two_player(wins: int, losses: int, draws: int = 0) -> list[GameResult]:
    """``a`` against ``b``: each game its own deal set."""
    places = [(1, 2)] * wins + [(2, 1)] * losses + [(1, 1)] * draws
    return [GameResult(i, 0, i, 0, ("a", "b"), p, p) for i, p in enumerate(places)]


def test_two_bots_match_the_closed_form() -> None:
    ratings = bradley_terry(two_player(75, 25), ["a", "b"], prior=1e-9)
    assert ratings["a"] - ratings["b"] == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert ratings["a"] + ratings["b"] == pytest.approx(0.0)


def test_draws_count_half() -> None:
    ratings = bradley_terry(two_player(10, 10, draws=30), ["a", "b"])
    assert ratings["a"] == pytest.approx(0.0, abs=1e-9)


def test_unbeaten_bot_stays_finite_thanks_to_the_prior() -> None:
    ratings = bradley_terry(two_player(40, 0), ["a", "b"])
    assert 300 < ratings["a"] - ratings["b"] < 2000


def test_ratings_are_centred_on_zero() -> None:
    results = round_robin(spread_ratings(4, 80), 3, 4, seed=5)
    ratings = bradley_terry(results, ["bot0", "bot1", "bot2", "bot3"])
    assert sum(ratings.values()) == pytest.approx(0.0, abs=1e-9)
    assert len(set(ratings.values())) == 4  # centring shifts; it does not flatten


def test_recovers_the_order_of_known_strengths() -> None:
    truth = spread_ratings(8, 60)
    results = round_robin(truth, 3, 12, seed=11)
    ratings = bradley_terry(results, list(truth))
    assert sorted(ratings, key=ratings.__getitem__) == list(truth)
    assert max(abs(ratings[b] - truth[b]) for b in truth) < 40


def test_intervals_hold_the_estimate_and_los_is_consistent() -> None:
    truth = spread_ratings(5, 100)
    boot = bootstrap_ratings(round_robin(truth, 3, 4, seed=2), list(truth), resamples=100)
    assert boot.units == 10 * 4 and boot.resamples == 100
    for low, rating, high in zip(boot.low, boot.ratings, boot.high, strict=True):
        assert low < rating < high
    n = len(truth)
    for i in range(n):
        assert boot.los[i][i] == 0.5
        for j in range(n):
            assert boot.los[i][j] + boot.los[j][i] == pytest.approx(1.0)
    assert boot.los[n - 1][0] > 0.99


def test_bootstrap_is_deterministic_for_a_seed() -> None:
    results = round_robin(spread_ratings(4, 50), 2, 3, seed=1)
    bots = [f"bot{i}" for i in range(4)]
    assert bootstrap_ratings(results, bots, 50, seed=4) == bootstrap_ratings(results, bots, 50,
                                                                              seed=4)


def test_intervals_cover_the_truth_at_about_the_stated_rate() -> None:
    """Over repeated tournaments, 95% intervals should hold the true rating ~95% of the time."""
    truth = spread_ratings(5, 70)
    bots = list(truth)
    covered = total = 0
    for trial in range(40):
        results = round_robin(truth, 3, 4, seed=1000 + trial)
        boot = bootstrap_ratings(results, bots, resamples=100, seed=trial)
        for i, bot in enumerate(bots):
            covered += boot.low[i] <= truth[bot] <= boot.high[i]
            total += 1
    assert 0.86 <= covered / total <= 0.995, covered / total


def test_interval_bounds_are_widened_by_the_bootstraps_small_sample_factor() -> None:
    """A bootstrap's variance is (n−1)/n of the estimator's: each bound moves away from the
    rating by √(n/(n−1)) for n deal sets (none is possible with one)."""
    samples = [[float(x)] for x in range(-50, 51)]  # quantiles 2.5% and 97.5%: -47.5, +47.5
    assert _percentile_bounds(samples, [0.0], 0.95) == ((-47.5,), (47.5,))
    low, high = _percentile_bounds(samples, [10.0], 0.95, _widening(5))
    assert math.isclose(10.0 - low[0], math.sqrt(5 / 4) * 57.5)
    assert math.isclose(high[0] - 10.0, math.sqrt(5 / 4) * 37.5)
    assert _widening(1) == 1.0 and math.isclose(_widening(20), math.sqrt(20 / 19))
    # a point outside its quantiles (few, lopsided deal sets): widening never narrows
    assert _percentile_bounds(samples, [60.0], 0.95, _widening(5))[1] == (47.5,)
