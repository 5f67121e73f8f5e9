"""The published board: the calibrated Bradley–Terry ratings of ``craits.ratings``, refitted from
every recorded game, with t intervals from the spread between deal sets.

Which versions are listed: the playing ones (each contestant's latest ``[versions] playing``
rated versions). The fit uses every game ever recorded, retired versions' included, since those
games measured the playing versions too.

**The order, stated once:** established versions first, by the lower end of their 95% interval
(the rating the data support with confidence, as Battlesnake's arena ranks by μ − 3σ), then the
provisional ones, by rating. A version is *provisional* until it has played
``[ladder] provisional`` deal sets, or while the fit has no interval for it because there are
too few deal sets in all. One whose every deal set ended the same way (a clean sweep) has no
interval either, for want of spread, but is established once it has its deal sets, and placed by
its rating: listing a version that won every game below those it beat would be wrong. Ties
break by rating, then by version id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from craits.ratings.intervals import RatingIntervals, deal_set_units, unit_ratings
from craits.ratings.results import ScoredGame

from .store import Contestant, Version


def board_rows(games: Sequence[ScoredGame], playing: Sequence[Version],
               contestants: Sequence[Contestant], provisional: int) -> list[dict[str, Any]]:
    """The board's rows, best first (module doc for the order), fitted from the games
    themselves: the reference that the service's refit (``refit``, from what it keeps of the
    games) equals row for row."""
    if not playing:
        return []
    bots = sorted({s for g in games for s in g.seats} | {str(v.id) for v in playing})
    ordered = sorted(games, key=lambda g: g.game_index)
    fit = unit_ratings(deal_set_units(ordered, {b: i for i, b in enumerate(bots)}), bots,
                       superiority=False)
    played: dict[str, int] = {}
    deal_sets: dict[str, set[int]] = {}
    for game in games:
        for seat in game.seats:
            played[seat] = played.get(seat, 0) + 1
            deal_sets.setdefault(seat, set()).add(game.meeting_index)
    return rows_of(fit, played, {b: len(s) for b, s in deal_sets.items()}, playing,
                   contestants, provisional)


def rows_of(fit: RatingIntervals, played: Mapping[str, int], deal_sets: Mapping[str, int],
            playing: Sequence[Version], contestants: Sequence[Contestant], provisional: int
            ) -> list[dict[str, Any]]:
    """The board's rows from the fit of every bot (``fit.bots``: version ids as text) and each
    one's games and deal sets, listing the ``playing`` versions (module doc)."""
    names = {c.id: c.name for c in contestants}
    listed = {str(v.id): v for v in playing}
    rows = []
    for i, bot in enumerate(fit.bots):
        version = listed.get(bot)
        if version is None:
            continue
        shown = fit.enough and not fit.fixed[i]
        low = fit.low[i] if shown else None
        high = fit.high[i] if shown else None
        sets = deal_sets.get(bot, 0)
        # Every deal set of it ended the same way (a clean sweep, say): no spread, so no
        # interval, but its rating is no less known for that (ordered by it, module doc).
        swept = fit.enough and bool(fit.fixed[i])
        established = sets >= provisional and (low is not None or swept)
        rows.append({
            "contestant": names.get(version.contestant_id, "?"),
            "contestant_id": version.contestant_id, "version": version.number,
            "version_id": version.id, "rating": round(fit.ratings[i], 1),
            "low": None if low is None else round(low, 1),
            "high": None if high is None else round(high, 1),
            "games": played.get(bot, 0), "deal_sets": sets, "provisional": not established,
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
