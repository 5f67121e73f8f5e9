"""Plackett–Luce on whole finishing orders (``benchmarks/plackett_luce.py``): fit, ties, and the
likelihood of a finish."""

from __future__ import annotations

import math

import pytest
from plackett_luce import finish_log_likelihood, plackett_luce, strict_orders

from craits.ratings.elo import ELO_PER_NAT
from craits.ratings.results import ScoredGame
from tests.tournament.synthetic import round_robin, spread_ratings


@pytest.mark.slow
def test_recovers_known_strengths() -> None:
    truth = spread_ratings(4, 120)
    fitted = plackett_luce(round_robin(truth, 3, 60, seed=3), list(truth))
    for bot, rating in truth.items():
        assert fitted[bot] == pytest.approx(rating, abs=40)
    assert sum(fitted.values()) == pytest.approx(0.0, abs=1e-9)


def test_an_unbeaten_bot_stays_finite_thanks_to_the_prior() -> None:
    games = [ScoredGame(i, 0, i, 0, ("a", "b", "c"), (1, 2, 3), (1, 2, 3)) for i in range(5)]
    fitted = plackett_luce(games, ["a", "b", "c"])
    assert fitted["a"] > fitted["b"] > fitted["c"] and math.isfinite(fitted["a"])


def test_a_shared_place_allows_both_orders() -> None:
    tie = ScoredGame(0, 0, 0, 0, ("a", "b", "c"), (5, 5, 9), (1, 1, 3))
    orders = strict_orders(tie, {"a": 0, "b": 1, "c": 2})
    assert sorted(orders) == [(0.5, (0, 1, 2)), (0.5, (1, 0, 2))]
    # equal strengths: P(a, b first two in either order) = 2 · (1/3 · 1/2)
    equal = dict.fromkeys("abc", 0.0)
    assert finish_log_likelihood(tie, equal) == pytest.approx(math.log(1 / 3))


def test_finish_likelihood_is_plackett_luces() -> None:
    game = ScoredGame(0, 0, 0, 0, ("a", "b", "c"), (1, 2, 3), (1, 2, 3))
    ratings = {"a": ELO_PER_NAT * math.log(3.0), "b": ELO_PER_NAT * math.log(2.0), "c": 0.0}
    assert finish_log_likelihood(game, ratings) == pytest.approx(math.log(3 / 6 * 2 / 3))
