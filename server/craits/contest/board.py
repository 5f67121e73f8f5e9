"""The published board: the calibrated Bradley–Terry ratings of ``craits.ratings``, refitted from
every recorded game, with t intervals from the spread between deal sets.

Which versions are listed: the playing ones (each contestant's latest ``[versions] playing``
rated versions). The fit uses every game ever recorded, retired versions' included, since those
games measured the playing versions too.

**The order, stated once:** established versions first, by the lower end of their 95% interval
(the rating the data support with confidence, as Battlesnake's arena ranks by μ − 3σ), then the
provisional ones, by rating. A version is *provisional* until it has played
``[ladder] provisional`` deal sets, or while the fit has no interval for it (too few deal sets
in all, or every deal set of it ended the same way). Ties break by rating, then by version id.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from craits.ratings.results import ScoredGame
from craits.ratings.standings import compute_standings

from .store import Contestant, Version


def board_rows(games: Sequence[ScoredGame], playing: Sequence[Version],
               contestants: Sequence[Contestant], provisional: int) -> list[dict[str, Any]]:
    """The board's rows, best first (module doc for the order)."""
    names = {c.id: c.name for c in contestants}
    listed = {str(v.id): v for v in playing}
    if not listed:
        return []
    bots = sorted({s for g in games for s in g.seats} | set(listed))
    standings = compute_standings(games, bots)
    deal_sets: dict[str, set[int]] = {}
    for game in games:
        for seat in game.seats:
            deal_sets.setdefault(seat, set()).add(game.meeting_index)
    rows = []
    for row in standings.rows:
        version = listed.get(row.bot)
        if version is None:
            continue
        sets = len(deal_sets.get(row.bot, ()))
        established = sets >= provisional and row.low is not None
        rows.append({
            "contestant": names.get(version.contestant_id, "?"),
            "contestant_id": version.contestant_id, "version": version.number,
            "version_id": version.id, "rating": round(row.rating, 1),
            "low": None if row.low is None else round(row.low, 1),
            "high": None if row.high is None else round(row.high, 1),
            "games": row.stats.games, "deal_sets": sets, "provisional": not established,
            "status": "provisional" if not established else "rated",
        })
    rows.sort(key=_order)
    for rank, row_ in enumerate(rows, start=1):
        row_["rank"] = rank
    return rows


def _order(row: dict[str, Any]) -> tuple[bool, float, float, int]:
    """The board's order (module doc): established first, by the interval's lower end."""
    rating = float(row["rating"])
    low = row["low"]
    key = rating if row["provisional"] or low is None else float(low)
    return (bool(row["provisional"]), -key, -rating, int(row["version_id"]))


def board_line(row: dict[str, Any]) -> str:
    """One row as ``craits contest standings`` prints it."""
    interval = ("" if row.get("low") is None
                else f" [{row['low']:+.0f}, {row['high']:+.0f}]")
    note = " provisional" if row.get("provisional") else ""
    return (f"{row.get('rank', '?'):>3}. {row.get('contestant')} v{row.get('version')}  "
            f"{row.get('rating', 0.0):+.0f}{interval}  {row.get('games')} games, "
            f"{row.get('deal_sets')} deal sets{note}")
