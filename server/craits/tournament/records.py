"""What the runner hands to the store when a game ends: the result and the whole log.

The referee's own types stay on its side of the layer boundary; the runner copies what it knows
into these plain values, and ``Store.record_game`` writes them in one transaction.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One line of a game's log: an engine event, a bot's move, a strike, a note.

    ``kind`` says which (engine events keep their own kinds, e.g. ``deal``; a bot's answer is
    ``move``; a failure-policy action is ``strike`` or ``forfeit``). ``elapsed_ms`` is the time a
    bot took to answer, for moves.
    """

    kind: str
    seat: int = -1
    data: Mapping[str, Any] = field(default_factory=dict)
    """JSON-ready details (an event's ``to_dict()``, a move's text, a strike's reason)."""
    elapsed_ms: float | None = None


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """A played game of a scheduled job, ready to be recorded."""

    tournament_id: str
    game_index: int
    totals: tuple[int, ...]
    places: tuple[int, ...]
    strikes: tuple[int, ...]
    forfeited: tuple[bool, ...]
    started: float
    """Unix time the game started (``time.time()``)."""
    finished: float
    log: tuple[LogEntry, ...] = ()
    outcome: Mapping[str, Any] = field(default_factory=dict)
    """Further JSON-ready facts of the outcome (hands played, hand scores, pressure points)."""
