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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..store import ContestStore, Version
from ..versions import VersionState


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


def read_board(store: ContestStore, playing: int) -> list[BoardRow]:
    """The leaderboard now: the published rows, then the versions not on it (each
    contestant's latest ``playing`` rated ones, any suspended, every one validating)."""
    names = {c.id: c.name for c in store.contestants()}
    published = [_published(row) for row in store.standings()]
    on_board = {(r.contestant_id, r.version) for r in published}
    rows = [BoardRow(i, r.contestant, r.contestant_id, r.version, r.rating, r.low, r.high,
                     r.games, r.status) for i, r in enumerate(published, 1)]
    for contestant_id, name in names.items():
        for version in _waiting(store.versions_of(contestant_id), playing):
            if (contestant_id, version.number) not in on_board:
                rows.append(BoardRow(None, name, contestant_id, version.number, None, None,
                                     None, 0, _status(version.state)))
    return rows


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
                    str(row.get("status", "rated")))


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) \
        else None
