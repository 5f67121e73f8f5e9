"""Online multiplayer Elo: pairwise from places, K scaled by 1/(N−1), zero-sum."""

from __future__ import annotations

import pytest

from craits.ratings.elo import OnlineElo, expected_score, online_elo
from craits.ratings.results import ScoredGame

from .synthetic import round_robin, spread_ratings


def test_expected_score_is_the_elo_curve() -> None:
    assert expected_score(0) == 0.5
    assert expected_score(400) == pytest.approx(10 / 11)
    assert expected_score(-400) == pytest.approx(1 / 11)


def test_two_player_game_is_classic_elo() -> None:
    elo = OnlineElo(["a", "b"], k=16)
    assert elo.update(["a", "b"], [1, 2]) == {"a": 8.0, "b": -8.0}
    assert elo.update(["b", "a"], [1, 1]) == pytest.approx({"a": -0.368, "b": 0.368}, abs=1e-3)


def test_multiplayer_finish_counts_every_pair_with_k_over_n_minus_1() -> None:
    elo = OnlineElo(k=30)
    deltas = elo.update(["w", "x", "y", "z"], [1, 2, 2, 4])
    # From equal ratings each pair expects 0.5: w scores 3 of 3, x and y 1.5, z 0.
    assert deltas == pytest.approx({"w": 15.0, "x": 0.0, "y": 0.0, "z": -15.0})
    assert sum(elo.ratings.values()) == pytest.approx(0.0)


def test_ratings_stay_zero_sum_and_order_the_field() -> None:
    truth = spread_ratings(5, 100)
    ratings = online_elo(round_robin(truth, 3, 6, seed=3), truth)
    assert sum(ratings.values()) == pytest.approx(0.0, abs=1e-9)
    assert ratings["bot4"] > ratings["bot2"] > ratings["bot0"]


def test_final_online_elo_replays_in_schedule_order() -> None:
    results = round_robin(spread_ratings(4, 50), 2, 3, seed=1)
    shuffled: list[ScoredGame] = results[::-1]
    assert online_elo(shuffled) == online_elo(results)
