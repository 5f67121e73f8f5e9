"""A quick match's score: A's W-L-D against B and the Elo difference with its interval.

What ``craits match --games N`` and ``craits serve --games N`` print, in the form cutechess users
know ("Score of A vs B: W - L - D", "Elo difference: ..."). The Elo difference and its range are
``intervals.head_to_head``'s: the tournament's own method (Bradley–Terry, the spread between deal
sets, t quantiles, no interval below its minimum of deal sets), so that a match and a tournament
of the same games say the same thing. Nothing here computes a statistic of its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .elo import elo_of
from .intervals import HeadToHead, head_to_head
from .pair_wld import WinLossDraw
from .results import ScoredGame, pair_score

__all__ = ["MatchScore", "elo_of", "match_score", "score_lines"]


@dataclass(frozen=True, slots=True)
class MatchScore:
    """A against B over the games both played."""

    a: str
    b: str
    record: WinLossDraw
    rating: HeadToHead
    """The Elo difference and what can be said of its range."""

    @property
    def score(self) -> float:
        """A's score per game: wins plus half the draws, over the games."""
        r = self.record
        return (r.wins + r.draws / 2) / r.games if r.games else 0.5

    @property
    def deal_sets(self) -> int:
        """Deal sets behind the Elo difference."""
        return self.rating.units

    @property
    def elo(self) -> float:
        """A's Elo difference to B (``HeadToHead.elo``)."""
        return self.rating.elo

    @property
    def low(self) -> float | None:
        """The lower bound, None when there is none (``HeadToHead``)."""
        return self.rating.low

    @property
    def high(self) -> float | None:
        """The upper bound, None when there is none (``HeadToHead``)."""
        return self.rating.high


def match_score(results: Iterable[ScoredGame], a: str, b: str) -> MatchScore:
    """A's record against B, and the Elo difference over their deal sets (``head_to_head``)."""
    games = [r for r in results if a in r.seats and b in r.seats]
    record = WinLossDraw()
    for result in games:
        record = record.add(pair_score(result.places[result.seats.index(a)],
                                       result.places[result.seats.index(b)]))
    return MatchScore(a, b, record, head_to_head(games, a, b))


def elo_text(m: MatchScore) -> str:
    """What follows "Elo difference: ": the difference and its interval, a one-sided bound
    without the point (the fit's finite point would be the prior's, not the games'), or the
    difference and why there is no interval."""
    h = m.rating
    if h.low is not None and h.high is not None:
        return (f"{_signed(h.elo)} [{_signed(h.low)}, {_signed(h.high)}] "
                f"(95%, over {h.units} deal sets)")
    if h.low is not None:
        return f"at least {_signed(h.low)} ({h.note})"
    if h.high is not None:
        return f"at most {_signed(h.high)} ({h.note})"
    return f"{_signed(h.elo)}, {h.note}"


def _signed(elo: float) -> str:
    """``+12``, ``-7``, and ``+0`` for anything that rounds to 0 (never ``-0``)."""
    return f"{round(elo) + 0:+d}"


def score_lines(m: MatchScore) -> list[str]:
    """``Score of A vs B: 7 - 3 - 0 [0.700] 10`` and the Elo line."""
    r = m.record
    return [f"Score of {m.a} vs {m.b}: {r.wins} - {r.losses} - {r.draws} (W - L - D) "
            f"[{m.score:.3f}] {r.games}",
            f"Elo difference: {elo_text(m)}"]
