"""SPRT on deal-set scores: accepts H1 for a clearly stronger bot, H0 for equals."""

from __future__ import annotations

import math

import pytest

from craits.ratings.results import ScoredGame
from craits.ratings.sprt import (
    ACCEPT_H0,
    ACCEPT_H1,
    CONTINUE,
    SprtResult,
    deal_set_scores,
    gauntlet_scores,
    sprt,
)

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
             places: tuple[int, ...]) -> ScoredGame:
        return ScoredGame(index, 0, deal_set, index % 2, seats, places, places)

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


def test_gauntlet_scores_are_the_candidates_table_scores_per_meeting_in_schedule_order() -> None:
    def game(index: int, meeting: int, deal_set: int, seats: tuple[str, ...],
             places: tuple[int, ...]) -> ScoredGame:
        return ScoredGame(index, meeting, deal_set, index % 2, seats, places, places)

    results = [
        game(0, 0, 0, ("C", "x", "y"), (1, 2, 3)), game(1, 0, 0, ("x", "y", "C"), (1, 2, 3)),
        game(2, 1, 0, ("C", "x", "z"), (2, 2, 1)), game(3, 1, 0, ("x", "z", "C"), (1, 2, 2)),
        game(4, 0, 1, ("C", "x", "y"), (1, 2, 3)),  # deal set 1 of meeting 0: incomplete
        game(6, 1, 1, ("C", "x", "z"), (1, 2, 3)), game(7, 1, 1, ("x", "z", "C"), (3, 2, 1)),
    ]
    # per game, the candidate's mean score against its two opponents; per unit, their mean:
    # meeting 0 of deal set 0: 1 then 0 -> 0.5; meeting 1: (½ + 0)/2 then (0 + ½)/2 -> 0.25;
    # meeting 0 of deal set 1 is incomplete, so meeting 1 of deal set 1 waits for it
    assert gauntlet_scores(results, "C", meetings=2, games_per_deal_set=2) == [0.5, 0.25]
    complete = [*results, game(5, 0, 1, ("x", "y", "C"), (2, 3, 1))]
    assert gauntlet_scores(complete, "C", 2, 2) == [0.5, 0.25, 1.0, 1.0]


def decisions(truth: dict[str, float], only: str | None, table_size: int, edge_name: str,
              runs: int, elo1: float) -> dict[str, int]:
    """How ``runs`` simulated sequential tests ended (H0, H1, continue), each run played to
    at most 200 observations (deal sets of a match, units of a gauntlet) of Plackett–Luce
    finishes."""
    per_set = table_size
    meetings = 1 if only is None else math.comb(len(truth) - 1, table_size - 1)
    out = {ACCEPT_H0: 0, ACCEPT_H1: 0, CONTINUE: 0}
    for run in range(runs):
        results = round_robin(truth, table_size, 200 // meetings, seed=1000 + run, only=only)
        if only is None:
            scores = deal_set_scores(results, edge_name, "B", per_set)
        else:
            scores = gauntlet_scores(results, only, meetings, per_set)
        out[sprt(scores, 0.0, elo1).decision] += 1
    return out


# The error-rate check, the same for a match and for gauntlets: at the truth elo0 the test
# accepts H1 in at most about alpha of the runs, at elo1 it accepts H0 in at most about beta.
# alpha = beta = 0.05 over 120 runs: 6 expected, 13 is beyond 2.9 binomial standard errors.
# The gauntlets' fields are spread around 0 (so the candidate's expected score against their mix
# is ½ at 0 Elo, and within 0.002 of the Elo expectation at 120).
FIELD = {"A": 0.0, "B": 0.0, "c": 40.0, "d": -40.0}
SHAPES = [
    ("match", {"A": 0.0, "B": 0.0}, None, 2),
    ("gauntlet, tables of 2", FIELD, "A", 2),
    ("gauntlet, tables of 3", FIELD, "A", 3),
]


@pytest.mark.parametrize(("shape", "truth", "only", "size"), SHAPES, ids=[s[0] for s in SHAPES])
@pytest.mark.parametrize("true_elo", [0.0, 120.0])
@pytest.mark.slow
def test_sequential_tests_keep_their_error_rates(
    shape: str, truth: dict[str, float], only: str | None, size: int, true_elo: float,
) -> None:
    ended = decisions({**truth, "A": true_elo}, only, size, "A", runs=120, elo1=120.0)
    wrong = ended[ACCEPT_H1] if true_elo == 0.0 else ended[ACCEPT_H0]
    assert wrong <= 13, f"{shape} at {true_elo} Elo: {ended}"
    assert ended[CONTINUE] <= 6, f"{shape}: most runs decide within 200 observations: {ended}"
