"""SPRT on deal-set scores: accepts H1 for a clearly stronger bot, H0 for equals."""

from __future__ import annotations

import math

import pytest

from craits.tournament.results import GameResult
from craits.tournament.sprt import ACCEPT_H0, ACCEPT_H1, CONTINUE, SprtResult, deal_set_scores, sprt

from .synthetic import round_robin


def run_match(edge: float, seed: int, elo0: float = 0.0, elo1: float = 50.0) -> SprtResult:
    """Play deal sets of A (``edge`` Elo stronger) against B until the test decides."""
    results = round_robin({"A": edge, "B": 0.0}, 2, 3000, seed=seed)
    for played in range(1, 3001):
        scores = deal_set_scores(results[: 2 * played], "A", "B", games_per_deal_set=2)
        result = sprt(scores, elo0, elo1)
        if result.decision != CONTINUE:
            return result
    raise AssertionError("the test never decided")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_clearly_stronger_bot_accepts_h1(seed: int) -> None:
    result = run_match(200.0, seed)
    assert result.decision == ACCEPT_H1
    assert result.llr >= result.upper
    assert result.elo > 50 and result.wins > result.losses


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_equal_bots_accept_h0(seed: int) -> None:
    result = run_match(0.0, seed)
    assert result.decision == ACCEPT_H0
    assert result.llr <= result.lower


def test_bounds_follow_alpha_and_beta() -> None:
    result = sprt([], 0, 10, alpha=0.05, beta=0.1)
    assert result.decision == CONTINUE and result.llr == 0.0 and result.score == 0.5
    assert result.lower == pytest.approx(math.log(0.1 / 0.95))
    assert result.upper == pytest.approx(math.log(0.9 / 0.05))
    with pytest.raises(ValueError):
        sprt([0.5], 10, 10)


def test_all_wins_from_the_start_need_a_few_deal_sets_not_one() -> None:
    assert sprt([1.0], 0, 20).decision == CONTINUE
    assert sprt([1.0] * 40, 0, 20).decision == ACCEPT_H1


def test_only_complete_deal_sets_count_in_schedule_order() -> None:
    def game(index: int, deal_set: int, seats: tuple[str, ...],
             places: tuple[int, ...]) -> GameResult:
        return GameResult(index, 0, deal_set, index % 2, seats, places, places)

    results = [
        game(0, 0, ("A", "B"), (1, 2)), game(1, 0, ("B", "A"), (1, 2)),   # A 1 + 0 -> 0.5
        game(3, 1, ("B", "A"), (2, 1)), game(2, 1, ("A", "B"), (1, 1)),   # A 1 + 0.5 -> 0.75
        game(4, 2, ("A", "B"), (1, 2)),                                    # incomplete
    ]
    assert deal_set_scores(results, "A", "B", 2) == [0.5, 0.75]
    assert deal_set_scores(results, "B", "A", 2) == [0.5, 0.25]
    # a complete deal set after the incomplete one waits for it: the test's sequence must not
    # depend on which table finished first
    later = [game(6, 3, ("A", "B"), (1, 2)), game(7, 3, ("B", "A"), (2, 1))]
    assert deal_set_scores(results + later, "A", "B", 2) == [0.5, 0.75]
    assert deal_set_scores(results + later + [game(5, 2, ("B", "A"), (1, 2))], "A", "B", 2) == [
        0.5, 0.75, 0.5, 1.0]
    # and so does one after a deal set none of whose games is recorded yet
    assert deal_set_scores(results[:2] + later, "A", "B", 2) == [0.5]


def test_the_verdict_is_the_first_passage_later_deal_sets_do_not_undo_it() -> None:
    """A match stops scheduling at the decision, but games in flight still finish: they must
    not turn a stopped match's verdict back into "continue" (or flip it)."""
    decided = sprt([0.5, 0, 0, 0, 0, 0], 0, 100)
    assert decided.decision == ACCEPT_H0 and decided.deal_sets == 6
    for extra in ([1.0], [1.0, 1.0], [1.0] * 30):
        assert sprt([0.5, 0, 0, 0, 0, 0, *extra], 0, 100) == decided
    assert sprt([0.5, 0, 0, 0, 0], 0, 100).decision == CONTINUE


def test_the_llr_of_running_sums_equals_the_direct_formula() -> None:
    scores = [0.5, 0.25, 1.0, 0.75, 0.5, 0.0, 1.0]
    result = sprt(scores, -10, 10, prior=1.0)
    s0, s1 = 1 / (1 + 10 ** (10 / 400)), 1 / (1 + 10 ** (-10 / 400))
    weight = len(scores) + 1.0
    mean = (sum(scores) + 0.5) / weight
    var = (sum((x - mean) ** 2 for x in scores) + 0.5 * (mean**2 + (1 - mean) ** 2)) / weight
    direct = len(scores) * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
    assert result.decision == CONTINUE and math.isclose(result.llr, direct, rel_tol=1e-12)
