"""Everything a results table shows, computed from a list of finished games and nothing else.

Pure and deterministic: the same results (in any order) give the same standings, whether they
come from the store, from a live run or from a test. Online Elo is replayed in schedule order and
the intervals involve no randomness, so a resumed tournament ends with exactly the standings of
an uninterrupted one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .bradley_terry import DEFAULT_PRIOR
from .elo import DEFAULT_K, online_elo
from .intervals import NO_SPREAD, NOT_ENOUGH, clustered_ratings, min_units_for
from .results import ScoredGame
from .stats import BotStats, PairRecord, bot_stats, crosstable


@dataclass(frozen=True, slots=True)
class Standing:
    """One bot's line in the table."""

    rank: int
    bot: str
    rating: float
    """Bradley–Terry rating, Elo scale (mean 0)."""
    low: float | None
    high: float | None
    """The interval's bounds; ``None`` when there were too few deal sets for an honest one."""
    online_elo: float
    stats: BotStats
    """Games, mean points and place, strikes, forfeits."""
    fixed: bool = False
    """Every pair of this bot ended the same way in every deal set: a spread of zero, which
    estimates no spread, so there is no interval (``low``/``high`` are None)."""

    @property
    def interval(self) -> str:
        """The interval as printed: ``[-12, +30]``, ``not enough games``, or ``not enough
        information`` for a bot whose deal sets never differed."""
        if self.low is None or self.high is None:
            return NO_SPREAD if self.fixed else NOT_ENOUGH
        return f"[{self.low:+.0f}, {self.high:+.0f}]"

    def to_dict(self) -> dict[str, Any]:
        """One flat JSON object: the rating columns, then the statistics, then ``fixed`` (last,
        so that the older keys keep their places)."""
        head = {f: getattr(self, f) for f in Standing.__slots__ if f not in ("stats", "fixed")}
        return {**head, **{f: getattr(self.stats, f) for f in BotStats.__slots__},
                "fixed": self.fixed}


@dataclass(frozen=True, slots=True)
class Standings:
    """The table (best first) plus the pairwise views."""

    rows: tuple[Standing, ...]
    los: dict[str, dict[str, float]]
    """``los[a][b]``: likelihood that a is really stronger than b."""
    crosstable: dict[str, dict[str, PairRecord]]
    games: int
    deal_sets: int
    confidence: float
    enough: bool
    """Whether the deal sets sufficed for intervals and LOS (else both say "not enough")."""

    @property
    def interval_note(self) -> str:
        """How the intervals were made, or why there are none."""
        pct = round(self.confidence * 100)
        if not self.enough:
            return (f"{NOT_ENOUGH} for {pct}% intervals: {self.deal_sets} deal sets, at least "
                    f"{min_units_for(len(self.rows))} needed for {len(self.rows)} bots")
        note = (f"{pct}% intervals from the spread between {self.deal_sets} deal sets "
                "(t quantiles)")
        fixed = [row.bot for row in self.rows if row.fixed]
        if fixed:
            note += (f"; {NO_SPREAD} for {', '.join(fixed)}: the same results in every deal set,"
                     " a spread of zero that estimates none")
        return note

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, for reports and ``--json`` output."""
        return {
            "games": self.games,
            "deal_sets": self.deal_sets,
            "confidence": self.confidence,
            "enough": self.enough,
            "intervals": self.interval_note,
            "rows": [row.to_dict() for row in self.rows],
            "los": self.los,
            "crosstable": {
                a: {b: {"games": rec.games, "score": rec.score} for b, rec in row.items()}
                for a, row in self.crosstable.items()
            },
        }


def compute_standings(
    results: Iterable[ScoredGame],
    bots: Sequence[str],
    *,
    confidence: float = 0.95,
    prior: float = DEFAULT_PRIOR,
    k: float = DEFAULT_K,
) -> Standings:
    """Ratings with intervals, online Elo, averages, LOS and crosstable of ``bots``."""
    ordered = sorted(results, key=lambda r: r.game_index)
    boot = clustered_ratings(ordered, bots, confidence, prior)
    elo = online_elo(ordered, bots, k)
    stats = bot_stats(ordered, bots)
    order = sorted(range(len(bots)), key=lambda i: (-boot.ratings[i], bots[i]))
    rows = tuple(
        Standing(
            rank=rank, bot=bots[i], rating=boot.ratings[i],
            low=boot.low[i] if shown else None, high=boot.high[i] if shown else None,
            online_elo=elo[bots[i]], stats=stats[bots[i]], fixed=boot.fixed[i],
        )
        for rank, i in enumerate(order, start=1)
        for shown in [boot.enough and not boot.fixed[i]]
    )
    los = {a: {b: boot.los[i][j] for j, b in enumerate(bots) if j != i}
           for i, a in enumerate(bots)}
    return Standings(
        rows=rows, los=los, crosstable=crosstable(ordered, bots), games=len(ordered),
        deal_sets=boot.units, confidence=confidence, enough=boot.enough,
    )
