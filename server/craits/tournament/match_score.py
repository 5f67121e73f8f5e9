"""A quick match's score: A's W-L-D against B and the Elo difference with its interval.

What ``craits match --games N`` prints, in the form cutechess users know ("Score of A vs B:
W - L - D", "Elo difference: ..."). The interval is taken over deal sets, not games: the
seatings of one deal share their cards and are strongly correlated (see ``sprt``), while deal
sets are independent; fewer than two deal sets give no interval at all.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .pair_wld import WinLossDraw
from .results import GameResult, pair_score

Z_95 = 1.959964
MAX_ELO = 1000.0


@dataclass(frozen=True, slots=True)
class MatchScore:
    """A against B over the games both played."""

    a: str
    b: str
    record: WinLossDraw
    deal_sets: int
    elo: float
    low: float | None
    high: float | None
    """The 95% interval's bounds (None from fewer than two deal sets)."""

    @property
    def score(self) -> float:
        """A's score per game: wins plus half the draws, over the games."""
        r = self.record
        return (r.wins + r.draws / 2) / r.games if r.games else 0.5


def elo_of(score: float) -> float:
    """The Elo difference whose expected score is ``score`` (clipped to ±``MAX_ELO``)."""
    if score <= 0.0 or score >= 1.0:
        return math.copysign(MAX_ELO, score - 0.5)
    return max(-MAX_ELO, min(MAX_ELO, -400.0 * math.log10(1.0 / score - 1.0)))


def match_score(results: Iterable[GameResult], a: str, b: str) -> MatchScore:
    """A's record against B, and the Elo difference from A's mean deal-set score."""
    record = WinLossDraw()
    units: dict[tuple[int, int], list[float]] = {}
    for result in results:
        if a in result.seats and b in result.seats:
            score = pair_score(result.places[result.seats.index(a)],
                               result.places[result.seats.index(b)])
            record = record.add(score)
            units.setdefault(result.deal_set_key, []).append(score)
    scores = [sum(unit) / len(unit) for unit in units.values()]
    mean = sum(scores) / len(scores) if scores else 0.5
    low, high = _interval(scores)
    return MatchScore(a, b, record, len(scores), elo_of(mean), low, high)


def _interval(scores: Sequence[float]) -> tuple[float | None, float | None]:
    """The 95% interval of the mean deal-set score, normal approximation, on the Elo scale."""
    if len(scores) < 2:
        return None, None
    mean = sum(scores) / len(scores)
    half = Z_95 * statistics.stdev(scores) / math.sqrt(len(scores))
    return elo_of(mean - half), elo_of(mean + half)


def score_lines(m: MatchScore) -> list[str]:
    """``Score of A vs B: 7 - 3 - 0 [0.700] 10`` and the Elo line."""
    r = m.record
    interval = ("unknown (fewer than 2 deal sets)" if m.low is None or m.high is None
                else f"[{m.low:+.0f}, {m.high:+.0f}] (95%, over {m.deal_sets} deal sets)")
    return [f"Score of {m.a} vs {m.b}: {r.wins} - {r.losses} - {r.draws} (W - L - D) "
            f"[{m.score:.3f}] {r.games}",
            f"Elo difference: {m.elo:+.0f} {interval}"]
