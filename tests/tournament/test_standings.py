"""Standings: per-bot statistics, crosstable, and the pure table over a list of results."""

from __future__ import annotations

import json
import random

import pytest

from craits.ratings.results import ScoredGame
from craits.ratings.standings import compute_standings
from craits.ratings.stats import bot_stats, crosstable

from .synthetic import round_robin, spread_ratings

GAMES = [
    ScoredGame(0, 0, 0, 0, ("a", "b", "c"), (-10, 40, 40), (1, 2, 2), (0, 1, 0),
               (False, False, False)),
    ScoredGame(1, 0, 0, 1, ("b", "c", "a"), (5, 300, 20), (1, 3, 2), (0, 3, 0),
               (False, True, False)),
]


def test_bot_stats_average_points_and_places() -> None:
    stats = bot_stats(GAMES, ["a", "b", "c"])
    assert stats["a"].games == 2 and stats["a"].mean_points == 5.0 and stats["a"].mean_place == 1.5
    assert stats["c"].mean_points == 170.0 and stats["c"].mean_place == 2.5
    assert (stats["b"].strikes, stats["c"].strikes, stats["c"].forfeits) == (1, 3, 1)


def test_crosstable_reads_as_each_bots_pairwise_record() -> None:
    table = crosstable(GAMES, ["a", "b", "c"])
    assert (table["a"]["b"].games, table["a"]["b"].score) == (2, 1.0)
    assert (table["b"]["c"].games, table["b"]["c"].score) == (2, 1.5)
    assert table["c"]["b"].rate == 0.25
    for a, row in table.items():
        for b, record in row.items():
            assert record.score + table[b][a].score == record.games


def test_standings_rank_by_rating_and_ignore_input_order() -> None:
    truth = spread_ratings(5, 120)
    results = round_robin(truth, 3, 6, seed=9)
    bots = list(truth)
    standings = compute_standings(results, bots)
    assert [row.bot for row in standings.rows] == bots[::-1]
    assert [row.rank for row in standings.rows] == [1, 2, 3, 4, 5]
    assert standings.games == len(results) and standings.deal_sets == 10 * 6
    top = standings.rows[0]
    assert top.low is not None and top.high is not None and standings.enough
    assert top.low < top.rating < top.high and top.stats.games == 6 * 6 * 3
    assert standings.los["bot4"]["bot0"] > 0.99
    shuffled = results[:]
    random.Random(1).shuffle(shuffled)
    assert compute_standings(shuffled, bots) == standings


def test_standings_to_dict_is_json() -> None:
    standings = compute_standings(GAMES, ["a", "b", "c"])
    data = json.loads(json.dumps(standings.to_dict()))
    assert data["rows"][0]["bot"] == "a"
    assert list(data["rows"][0])[:7] == ["rank", "bot", "rating", "low", "high", "online_elo",
                                         "games"]
    assert data["crosstable"]["a"]["b"] == {"games": 2, "score": 1.0}
    assert set(data["los"]["a"]) == {"b", "c"}


def test_too_few_deal_sets_print_not_enough_games_instead_of_intervals() -> None:
    standings = compute_standings(GAMES, ["a", "b", "c"])
    assert not standings.enough and standings.deal_sets == 1
    assert {row.interval for row in standings.rows} == {"not enough games"}
    assert all(los == 0.5 for row in standings.los.values() for los in row.values())
    data = json.loads(json.dumps(standings.to_dict()))
    assert data["enough"] is False and data["intervals"].startswith("not enough games")
    assert "1 deal sets, at least 5 needed for 3 bots" in data["intervals"]
    assert (data["rows"][0]["low"], data["rows"][0]["high"]) == (None, None)


def test_enough_deal_sets_print_intervals() -> None:
    truth = spread_ratings(3, 100)
    standings = compute_standings(round_robin(truth, 3, 5, seed=3), list(truth))
    assert standings.enough and standings.deal_sets == 5
    row = standings.rows[0]
    assert row.low is not None and row.high is not None
    assert row.interval == f"[{row.low:+.0f}, {row.high:+.0f}]"
    assert "95% intervals from the spread between 5 deal sets" in standings.interval_note


def test_results_must_be_well_formed() -> None:
    with pytest.raises(ValueError, match="align"):
        ScoredGame(0, 0, 0, 0, ("a", "b"), (1,), (1, 2))
    with pytest.raises(ValueError, match="two seats"):
        ScoredGame(0, 0, 0, 0, ("a", "a"), (1, 2), (1, 2))


def test_a_bot_whose_deal_sets_never_differ_prints_not_enough_information() -> None:
    """Two deterministic bots that split every deal set: the table, its note and the JSON say
    there is no interval rather than print "[+0, +0]"."""
    games = [ScoredGame(2 * d + s, 0, d, s, ("a", "b") if s == 0 else ("b", "a"), (1, 2), (1, 2))
             for d in range(6) for s in range(2)]
    standings = compute_standings(games, ["a", "b"])
    assert standings.enough
    assert [(row.interval, row.low, row.high, row.fixed) for row in standings.rows] == [
        ("not enough information", None, None, True)] * 2
    assert "not enough information for a, b: the same results in every deal set" in (
        standings.interval_note)
    data = json.loads(json.dumps(standings.to_dict()))
    assert [(row["low"], row["high"], row["fixed"]) for row in data["rows"]] == [
        (None, None, True)] * 2
