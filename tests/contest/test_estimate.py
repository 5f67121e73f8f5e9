"""The matchmaker's estimate of the field (``craits.contest.estimate``): the Bradley–Terry fit
of the playing versions' whole comparisons, with each version's variance around the field's
mean, on simulated games."""

from __future__ import annotations

import random

import pytest

from craits.contest.estimate import FieldEstimate, Skill
from craits.contest.matchmaking import doubt
from craits.contest.simulation import play_deal_set
from craits.ratings.bradley_terry import bradley_terry
from craits.ratings.results import ScoredGame


def game(seats: str, places: tuple[int, ...], index: int = 0) -> ScoredGame:
    return ScoredGame(game_index=index, meeting_index=0, deal_set=0, rotation=0,
                      seats=tuple(seats), totals=tuple(10 * p for p in places), places=places)


def random_tables(strength: dict[str, float], deal_sets: int, size: int, seed: int
                  ) -> list[ScoredGame]:
    """``deal_sets`` deal sets of uniformly random tables of ``size``, simulated."""
    rng = random.Random(seed)
    games: list[ScoredGame] = []
    for d in range(deal_sets):
        games.extend(play_deal_set(rng.sample(sorted(strength), size), strength, rng, d,
                                   len(games)))
    return games


def test_winners_go_up_and_games_shrink_the_doubt() -> None:
    estimate = FieldEstimate()
    assert estimate.fitted(["a", "b"]) == {"a": Skill(), "b": Skill()}  # nothing to fit yet
    estimate.add(game("abc", (1, 2, 3)))
    once = estimate.fitted(list("abc"))
    assert once["a"].mu > once["b"].mu > once["c"].mu
    assert sum(s.mu for s in once.values()) == pytest.approx(0.0)  # centred on the field
    for index in range(1, 10):
        estimate.add(game("abc", (1, 2, 3), index))
    ten = estimate.fitted(list("abc"))
    assert doubt(ten["a"], ten["b"]) < doubt(once["a"], once["b"]) < 0.5
    assert max(s.var for s in ten.values()) < min(s.var for s in once.values()) < Skill().var
    tied = FieldEstimate()
    tied.add(game("ab", (1, 1)))
    both = tied.fitted(["a", "b"])
    assert both["a"].mu == pytest.approx(both["b"].mu)


def test_its_ratings_are_the_boards_on_the_same_games() -> None:
    """Whole comparisons with the prior scaled by three are the board's fit at tables of 4:
    only the information (the variances) is three times the board's."""
    strength = {f"v{i}": 60.0 * i for i in range(6)}
    games = random_tables(strength, 30, 4, seed=3)
    estimate = FieldEstimate()
    for g in games:
        estimate.add(g)
    board = bradley_terry(games, sorted(strength))
    fitted = estimate.fitted(sorted(strength))
    for v in strength:
        assert fitted[v].mu == pytest.approx(board[v], abs=0.05)


def test_the_same_games_in_any_order_or_batches_give_the_same_estimate() -> None:
    strength = {f"v{i}": 50.0 * i for i in range(5)}
    games = random_tables(strength, 20, 3, seed=8)
    forward, backward = FieldEstimate(), FieldEstimate()
    for g in games[:30]:
        forward.add(g)
    forward.fitted(sorted(strength))  # a fit in between, as a running contest makes
    for g in games[30:]:
        forward.add(g)
    for g in reversed(games):
        backward.add(g)
    assert forward.records == backward.records
    ahead, behind = forward.fitted(sorted(strength)), backward.fitted(sorted(strength))
    for v in strength:
        assert ahead[v].mu == pytest.approx(behind[v].mu, abs=0.01)
        assert ahead[v].var == pytest.approx(behind[v].var, rel=1e-3)


def test_only_the_field_that_plays_is_fitted() -> None:
    """A retired version is not fitted, and its games leave the estimate with it: the others'
    are then fitted on the games among themselves."""
    estimate = FieldEstimate()
    estimate.add(game("ab", (1, 2), 0))
    estimate.add(game("bc", (1, 2), 1))
    three = estimate.fitted(list("abc"))
    two = estimate.fitted(list("bc"))
    assert set(two) == {"b", "c"} and set(estimate.skills) == {"b", "c"}
    assert two["b"].mu - two["c"].mu != pytest.approx(three["b"].mu - three["c"].mu)
    alone = FieldEstimate()
    alone.add(game("bc", (1, 2), 1))
    for v, s in alone.fitted(list("bc")).items():
        assert (s.mu, s.var) == pytest.approx((two[v].mu, two[v].var), rel=1e-6)


def doubts_and_discordant(runs: int, games: int, inflate: float) -> tuple[float, float]:
    """Over ``runs`` simulated fields of 16 versions 40 Elo apart on random tables of 4: the
    mean sum of doubt of the estimate's pairs (each variance times ``inflate``) and the mean
    number of pairs it actually orders wrong, after ``games`` games."""
    expected = counted = 0.0
    for run in range(runs):
        strength = {f"v{i:02d}": 40.0 * i for i in range(16)}
        ids = sorted(strength)
        estimate = FieldEstimate()
        for g in random_tables(strength, games // 4, 4, seed=run):
            estimate.add(g)
        skills = estimate.fitted(ids)
        wide = {v: Skill(s.mu, s.var * inflate) for v, s in skills.items()}
        for i, a in enumerate(ids):
            for b in ids[i + 1:]:
                expected += doubt(wide[a], wide[b])
                counted += (skills[a].mu - skills[b].mu) * (strength[a] - strength[b]) < 0
    return expected / runs, counted / runs


def test_its_doubts_expect_about_the_discordant_pairs_it_holds() -> None:
    """The doubts summed over the pairs (the discordant pairs the estimate expects) are about
    those it holds on random tables (0.99 over these 20 runs). Control: the board's weights (a
    finish's pairs counted 1/3 each at tables of 4: three times the variance) expect far
    more."""
    expected, counted = doubts_and_discordant(20, 200, 1.0)
    assert counted > 2.0  # enough pairs still wrong to tell
    assert 0.75 <= expected / counted <= 1.33, (expected, counted)
    board_weights, _ = doubts_and_discordant(20, 200, 3.0)
    assert board_weights / counted > 1.33, (board_weights, counted)
