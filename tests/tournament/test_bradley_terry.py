"""Bradley–Terry ratings on synthetic results of known strength."""

from __future__ import annotations

import math

import pytest

from craits.ratings.bradley_terry import bradley_terry
from craits.ratings.results import ScoredGame

from .synthetic import round_robin, spread_ratings


def two_player(wins: int, losses: int, draws: int = 0) -> list[ScoredGame]:
    """``a`` against ``b``: each game its own deal set."""
    places = [(1, 2)] * wins + [(2, 1)] * losses + [(1, 1)] * draws
    return [ScoredGame(i, 0, i, 0, ("a", "b"), p, p) for i, p in enumerate(places)]


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
