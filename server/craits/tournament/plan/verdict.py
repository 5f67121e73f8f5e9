"""The sequential test of a match or a gauntlet, as its plan defines it.

``craits.ratings.sprt`` is the statistic alone (scores per unit in, a verdict out); which units a
tournament's games form, and which bots are compared, is the plan's: its mode, its bots, its
table size and seatings, its meetings.
"""

from __future__ import annotations

from collections.abc import Sequence

from craits.ratings.results import ScoredGame
from craits.ratings.sprt import SprtResult, deal_set_scores, gauntlet_scores, sprt

from .config import TournamentConfig
from .schedule import iter_meetings, seat_orders


def match_verdict(config: TournamentConfig, results: Sequence[ScoredGame]) -> SprtResult:
    """The SPRT of a tournament that has one: a ``match`` (first bot = A, against B) over its
    complete deal sets, or a ``gauntlet`` (its candidate against the field) over the candidate's
    complete (deal set, meeting) units."""
    settings = config.sprt
    if config.mode not in ("match", "gauntlet") or settings is None:
        raise ValueError("only a match or a gauntlet with [sprt] has a sequential test")
    per_set = len(seat_orders(config.table_size, config.seatings))
    if config.mode == "gauntlet":
        meetings = sum(1 for _ in iter_meetings(config))
        scores = gauntlet_scores(results, config.gauntlet, meetings, per_set)
    else:
        a, b = config.bot_names[:2]
        scores = deal_set_scores(results, a, b, per_set)
    return sprt(scores, settings.elo0, settings.elo1, settings.alpha, settings.beta)
