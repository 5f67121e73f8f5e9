"""The deal-set bootstrap (``benchmarks/bootstrap.py``), the interval method measured against
the standings' own, on synthetic results of known strength."""

from __future__ import annotations

import math

import pytest
from bootstrap import _percentile_bounds, _widening, bootstrap_ratings

from tests.tournament.synthetic import round_robin, spread_ratings


def test_intervals_hold_the_estimate_and_los_is_consistent() -> None:
    truth = spread_ratings(5, 100)
    boot = bootstrap_ratings(round_robin(truth, 3, 4, seed=2), list(truth), resamples=100)
    assert boot.units == 10 * 4 and boot.enough and not any(boot.fixed)
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


@pytest.mark.slow
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
