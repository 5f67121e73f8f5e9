"""Descriptive statistics of a tournament: per-bot averages and the pairwise crosstable.

These need no model: they say what happened. Mean points are comparable between bots because
every bot of a meeting plays every seat of the same deals; across meetings they also depend on
the opponents, which is what the ratings correct for.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .results import ScoredGame


@dataclass(frozen=True, slots=True)
class BotStats:
    """What one bot did over all its games."""

    games: int
    mean_points: float
    """Mean final total per game (lower is better)."""
    mean_place: float
    strikes: int
    forfeits: int
    wins: int = 0
    """Games in which the bot took (or shared) first place."""


@dataclass(frozen=True, slots=True)
class PairRecord:
    """A's record against B over the games where both sat at the table."""

    games: int
    score: float
    """A's pairwise points: 1 per game ahead of B, 0.5 per tie."""

    @property
    def rate(self) -> float:
        """Score per game (0.5 when they never met)."""
        return self.score / self.games if self.games else 0.5


def bot_stats(results: Iterable[ScoredGame], bots: Sequence[str]) -> dict[str, BotStats]:
    """Per bot: games, mean points, mean place, strikes, forfeits and wins."""
    games = dict.fromkeys(bots, 0)
    points = dict.fromkeys(bots, 0)
    places = dict.fromkeys(bots, 0)
    strikes = dict.fromkeys(bots, 0)
    forfeits = dict.fromkeys(bots, 0)
    wins = dict.fromkeys(bots, 0)
    for r in results:
        for seat, bot in enumerate(r.seats):
            games[bot] += 1
            points[bot] += r.totals[seat]
            places[bot] += r.places[seat]
            strikes[bot] += r.strikes[seat] if r.strikes else 0
            forfeits[bot] += bool(r.forfeited and r.forfeited[seat])
            wins[bot] += r.places[seat] == 1
    return {
        bot: BotStats(
            games=games[bot],
            mean_points=points[bot] / games[bot] if games[bot] else 0.0,
            mean_place=places[bot] / games[bot] if games[bot] else 0.0,
            strikes=strikes[bot],
            forfeits=forfeits[bot],
            wins=wins[bot],
        )
        for bot in bots
    }


def crosstable(results: Iterable[ScoredGame], bots: Sequence[str]
               ) -> dict[str, dict[str, PairRecord]]:
    """``table[a][b]``: a's pairwise record against b (a's row reads as its results)."""
    games = {a: dict.fromkeys(bots, 0) for a in bots}
    score = {a: dict.fromkeys(bots, 0.0) for a in bots}
    for r in results:
        for a, b, s in r.pairs():
            games[a][b] += 1
            games[b][a] += 1
            score[a][b] += s
            score[b][a] += 1.0 - s
    return {a: {b: PairRecord(games[a][b], score[a][b]) for b in bots if b != a} for a in bots}
