"""A-vs-B matches that stop as soon as the evidence suffices: a sequential probability ratio test.

The observations are deal sets, not games: a deal set's seatings share their cards, so their
results are strongly correlated, while different deal sets are independent. A deal set's score
is A's mean pairwise score against B over its games (with two seatings: 0, ¼, ½, ¾ or 1, the
"pentanomial" of game pairs in chess-engine testing). The test is the generalised SPRT with a
normal approximation: under H_k the expected score is s_k = σ(elo_k) (the Elo expectation), and

    LLR = n · (s1 − s0) · (2·x̄ − s0 − s1) / (2·v)

with x̄ and v the mean and variance of the deal-set scores. Stop for H1 when LLR ≥ log((1−β)/α),
for H0 when LLR ≤ log(β/(1−α)); otherwise play on. ``prior`` pseudo deal sets, split between
scores 0 and 1, keep v positive when the first deal sets all agree (a small pull towards 0.5 that
fades as deal sets accumulate).

The verdict is the test's *first passage*: it is taken over deal sets in deal-set order, and
once a prefix of them crosses a bound, later deal sets do not count. A run stops scheduling
there, but games already in flight still finish and are recorded (they are in the standings);
had they counted, the reported verdict could contradict the one that stopped the match, and
would depend on how many tables happened to be busy.

Beyond two bots, a *gauntlet* tests one candidate against a field (a change against the
baseline and its peers): the observations are the candidate's deal sets, one per (deal set,
meeting) in schedule order, each scored as the candidate's mean pairwise score against everyone
else at its table over the deal set's games. Different meetings' deal sets have different cards,
so they are independent units like two deal sets of one meeting, and the same test applies with
elo read as the candidate's Elo against the field's mix of opponents.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from .elo import elo_of, expected_score
from .results import ScoredGame, pair_score

CONTINUE: Final = "continue"
ACCEPT_H0: Final = "H0"
ACCEPT_H1: Final = "H1"


@dataclass(frozen=True, slots=True)
class SprtResult:
    """Where the test stands after ``deal_sets`` observations."""

    decision: str
    """``continue``, ``H0`` (A is not elo1 better: at most elo0) or ``H1`` (A is at least elo1)."""
    llr: float
    lower: float
    upper: float
    deal_sets: int
    score: float
    """A's mean deal-set score (0.5 when there is none)."""
    elo: float
    """The Elo difference that ``score`` corresponds to (clipped to ±1000)."""
    wins: int
    draws: int
    losses: int
    """Deal sets A won (score > ½), drew, lost."""


def sprt(
    scores: Sequence[float],
    elo0: float,
    elo1: float,
    alpha: float = 0.05,
    beta: float = 0.05,
    prior: float = 1.0,
) -> SprtResult:
    """Test H0: elo = elo0 against H1: elo = elo1 on A's deal-set ``scores``."""
    if not elo1 > elo0:
        raise ValueError("elo1 must be greater than elo0")
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    s0, s1 = expected_score(elo0), expected_score(elo1)
    n, total, squares, llr = 0, 0.0, 0.0, 0.0
    for x in scores:  # the first passage (module doc): stop at the first prefix that decides
        n, total, squares = n + 1, total + x, squares + x * x
        llr = _llr(n, total, squares, s0, s1, prior)
        if not lower < llr < upper:
            break
    decision = ACCEPT_H1 if llr >= upper else ACCEPT_H0 if llr <= lower else CONTINUE
    scores = scores[:n]
    mean = total / n if n else 0.5
    return SprtResult(
        decision=decision, llr=llr, lower=lower, upper=upper, deal_sets=n, score=mean,
        elo=elo_of(mean), wins=sum(s > 0.5 for s in scores),
        draws=sum(s == 0.5 for s in scores), losses=sum(s < 0.5 for s in scores),
    )


def _llr(n: int, total: float, squares: float, s0: float, s1: float, prior: float) -> float:
    """The normal-approximation GSPRT statistic of ``n`` scores with sum ``total`` and sum of
    squares ``squares``, with ``prior`` pseudo-observations at 0 and 1 (sums, so that every
    prefix of a run of scores costs O(1))."""
    weight = n + prior
    mean = (total + prior / 2) / weight
    spread = squares - 2 * mean * total + n * mean * mean  # the sum of (x - mean)**2
    var = (spread + prior / 2 * (mean**2 + (1 - mean) ** 2)) / weight
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)


def deal_set_scores(
    results: Iterable[ScoredGame], a: str, b: str, games_per_deal_set: int
) -> list[float]:
    """A's score against B in each *complete* deal set, in deal-set order, up to the first one
    that is not complete.

    Only deal sets with all ``games_per_deal_set`` seatings played count: a partial deal set
    would let the luck of the cards back in. A complete one after an incomplete one waits for
    it, so that the test sees the same sequence however the tables finished (module doc).
    """
    units: dict[tuple[int, int], list[float]] = {}
    for result in results:
        if a in result.seats and b in result.seats:
            pa, pb = result.places[result.seats.index(a)], result.places[result.seats.index(b)]
            units.setdefault(_order_key(result), []).append(pair_score(pa, pb))
    scores: list[float] = []
    for (deal_set, _), unit in sorted(units.items()):
        if deal_set != len(scores) or len(unit) != games_per_deal_set:
            break  # a deal set in flight, recorded in part or not at all (a match has one meeting)
        scores.append(sum(unit) / len(unit))
    return scores


def gauntlet_scores(results: Iterable[ScoredGame], candidate: str, meetings: int,
                    games_per_deal_set: int) -> list[float]:
    """The candidate's score against its table in each complete (deal set, meeting), in
    schedule order (deal set, then meeting), up to the first one not complete.

    ``meetings`` is how many meetings hold the candidate in each deal set; as with
    ``deal_set_scores``, a complete unit after an incomplete one waits for it.
    """
    units: dict[tuple[int, int], list[float]] = {}
    for result in results:
        if candidate in result.seats:
            units.setdefault(_order_key(result), []).append(_table_score(result, candidate))
    scores: list[float] = []
    for key, unit in sorted(units.items()):
        if key != divmod(len(scores), meetings) or len(unit) != games_per_deal_set:
            break
        scores.append(sum(unit) / len(unit))
    return scores


def _table_score(result: ScoredGame, bot: str) -> float:
    """``bot``'s mean pairwise score against the others at the table of one game."""
    place = result.places[result.seats.index(bot)]
    others = [p for b, p in zip(result.seats, result.places, strict=True) if b != bot]
    return sum(pair_score(place, p) for p in others) / len(others)


def _order_key(result: ScoredGame) -> tuple[int, int]:
    """Deal set first, then meeting: the order in which the schedule completes them."""
    return (result.deal_set, result.meeting_index)
