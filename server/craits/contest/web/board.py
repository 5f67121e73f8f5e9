"""The leaderboard's rows: the ladder's published board, then every version that plays or is
on its way to playing but has no rating yet.

The ladder publishes its board as JSON rows (``store.standings()``, best first, in the order
its stated rule gives); a version appears there once it has played. A board of those rows
alone would hide the contestants whose versions are still validating or have not played, and
say nothing while the contest starts: so the versions of the store fill in below, each with the
status it has (``validating``; ``provisional`` with no games, for a rated version the ladder has
not published yet; ``suspended``). Rejected versions are not on the board: their owner sees
them on their bot's page.

A board row is read by the keys below, each optional, so a row the ladder adds fields to still
shows; a missing value is shown as a dash, never guessed.

The trend is a version's rating now against its rating an hour ago (``TREND_S``), read from the
rating history the ladder keeps after each refit (``verdicts.record_refit``: a point per table
the version played): a contestant asks "is my bot going up", and one number answers it without
the plot. A version rated for less than the hour is measured from its first point (it had no
rating before); a version with no history has no trend (a dash). It is read with the board,
once per change, not per page (``boardpage.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..store import ContestStore, Version
from ..versions import VersionState

TREND_S: Final = 3600.0
"""The trend's span: the rating change over the last hour (module doc)."""


@dataclass(frozen=True, slots=True)
class BoardRow:
    """One line of the leaderboard."""

    rank: int | None
    """Place among the rows with a rating; None for a version not rated yet."""
    contestant: str
    contestant_id: int | None
    version: int | None
    """The version's number for its contestant (1, 2, ...)."""
    rating: float | None
    low: float | None
    high: float | None
    games: int
    status: str
    trend: float | None = None
    """The rating's change over the last ``TREND_S`` (module doc); None without history."""
    version_id: int | None = None


@dataclass(frozen=True, slots=True)
class Board:
    """What the leaderboard's page shows: its rows and the contest's phase (the page's
    header), read together so that one revision of the board is one page."""

    rows: tuple[BoardRow, ...]
    phase: str


def read_board(store: ContestStore, playing: int, now: float | None = None) -> list[BoardRow]:
    """The leaderboard now: the published rows, then the versions not on it (each
    contestant's latest ``playing`` rated ones, any suspended, every one validating); with
    ``now``, the published rows' trends at that time."""
    names = {c.id: c.name for c in store.contestants()}
    published = [_published(row) for row in store.standings()]
    on_board = {(r.contestant_id, r.version) for r in published}
    before = {} if now is None else ratings_before(
        store, [r.version_id for r in published if r.version_id is not None], now - TREND_S)
    rows = [BoardRow(i, r.contestant, r.contestant_id, r.version, r.rating, r.low, r.high,
                     r.games, r.status, _change(r.rating, before, r.version_id),
                     r.version_id) for i, r in enumerate(published, 1)]
    for contestant_id, name in names.items():
        for version in _waiting(store.versions_of(contestant_id), playing):
            if (contestant_id, version.number) not in on_board:
                rows.append(BoardRow(None, name, contestant_id, version.number, None, None,
                                     None, 0, _status(version.state), None, version.id))
    return rows


def ratings_before(store: ContestStore, version_ids: Sequence[int], since: float
                   ) -> dict[int, float]:
    """Each version's rating at ``since`` (its last history point then, else its first one):
    the trend's starting point. One read; each version's points are found through the
    history's (version, id) index, newest first, so its cost is the points of the span, not
    of the whole contest. An empty answer before the ladder's first refit made the table."""
    if not version_ids or not store.read(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rating_history'"):
        return {}
    marks = ", ".join("?" * len(version_ids))
    rows = store.read(
        "SELECT v.id, COALESCE((SELECT rating FROM rating_history WHERE version_id = v.id AND "
        "at <= ? ORDER BY id DESC LIMIT 1), (SELECT rating FROM rating_history WHERE "
        f"version_id = v.id ORDER BY id LIMIT 1)) FROM versions v WHERE v.id IN ({marks})",
        (since, *version_ids))
    return {int(v): float(r) for v, r in rows if r is not None}


def _change(rating: float | None, before: dict[int, float], version_id: int | None
            ) -> float | None:
    """The trend of a row rated ``rating`` now (None without both ends)."""
    start = None if version_id is None else before.get(version_id)
    return None if rating is None or start is None else round(rating - start, 1)


def _waiting(versions: Sequence[Version], playing: int) -> list[Version]:
    """Of a contestant's versions (newest first), those that belong on the board."""
    rated = [v for v in versions if v.state is VersionState.RATED][:playing]
    return [v for v in versions if v in rated or v.state in (VersionState.VALIDATING,
                                                             VersionState.SUSPENDED)]


def _status(state: VersionState) -> str:
    return "provisional" if state is VersionState.RATED else str(state)


def _published(row: Mapping[str, Any]) -> BoardRow:
    """A row of the ladder's board."""
    interval = row.get("interval")
    low, high = (interval if isinstance(interval, list | tuple) and len(interval) == 2
                 else (row.get("low"), row.get("high")))
    return BoardRow(None, str(row.get("contestant", "?")), _int(row.get("contestant_id")),
                    _int(row.get("number", row.get("version"))), _float(row.get("rating")),
                    _float(low), _float(high), _int(row.get("games")) or 0,
                    str(row.get("status", "rated")), None, _int(row.get("version_id")))


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) \
        else None
