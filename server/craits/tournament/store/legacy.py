"""Game logs of stores before schema version 5: one ``events`` row per event, move and fault.

Such a log holds every engine event under its own kind (``deal``, ``play``, ...), then each
bot's answer (``move``), then each action of the failure policy (``strike``, ``forfeit``, or
``fault``). Read-only commands read it as it is (``read_log``); ``upgrade`` rewrites a store's
old games as records (``records.py``) when the store is migrated, which happens only on a
command that writes (``resume``, ``run``), never on one that only reads.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from craits.engine import Move, MoveError, Rules

from .game_records import (
    FAULT_ACTIONS,
    LoggedFault,
    LoggedMove,
    PlayLog,
    RecordError,
    check_outcome,
    rebuild,
)
from .record_codec import encode

MOVE: Final = "move"
REFEREE_KINDS: Final = frozenset({MOVE, *FAULT_ACTIONS})
"""Log kinds the referee adds; every other kind is an engine event's."""


class LogError(RecordError):
    """A stored log entry cannot be read back (a missing field, a move that does not parse)."""


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One ``events`` row: an engine event, a bot's move, a failure-policy action.

    ``elapsed_ms`` is the time a bot took to answer, for moves.
    """

    kind: str
    seat: int = -1
    data: Mapping[str, Any] = field(default_factory=dict)
    elapsed_ms: float | None = None


@dataclass(frozen=True, slots=True)
class GameLog:
    """An old log split by who wrote each entry."""

    moves: tuple[LoggedMove, ...]
    events: tuple[Mapping[str, Any], ...]
    """The engine events as stored (``Event.to_dict`` form)."""
    faults: tuple[LoggedFault, ...]


def read_log(log: Iterable[LogEntry]) -> GameLog:
    """Split an old log into moves, engine events and faults (``LogError`` if unreadable)."""
    entries = list(log)
    try:
        moves = tuple(_logged_move(e) for e in entries if e.kind == MOVE)
    except (MoveError, KeyError) as exc:
        raise LogError(f"unreadable log entry: {exc}") from None
    events = tuple(e.data for e in entries if e.kind not in REFEREE_KINDS)
    faults = tuple(_logged_fault(e) for e in entries if e.kind in FAULT_ACTIONS)
    return GameLog(moves, events, faults)


def _logged_move(entry: LogEntry) -> LoggedMove:
    data = entry.data
    return LoggedMove(entry.seat, Move.parse(str(data["move"])), int(data.get("decision", 0)),
                      entry.elapsed_ms, bool(data.get("defaulted", False)))


def _logged_fault(entry: LogEntry) -> LoggedFault:
    data = entry.data
    return LoggedFault(entry.kind, entry.seat, str(data.get("kind", "")),
                       str(data.get("detail", "")), int(data.get("decision", 0)))


def converted(log: GameLog, rules: Rules, seed: int, totals: list[int],
              outcome: Mapping[str, Any]) -> bytes:
    """The record of an old game, once its moves are checked to rebuild exactly its stored
    events, seats and outcome (``RecordError`` otherwise: the old log is then kept)."""
    play = PlayLog.of_moves(rules, len(totals), seed, log.moves, log.faults)
    game = rebuild(rules, len(totals), seed, play)
    if [e.to_dict() for e in game.game.events] != [dict(e) for e in log.events]:
        raise RecordError("the replayed events differ from the stored ones")
    if [m.seat for m in game.moves] != [m.seat for m in log.moves]:
        raise RecordError("the replayed seats differ from the stored ones")
    check_outcome(game.game, totals, outcome)
    return encode(play)


def upgrade(db: sqlite3.Connection) -> None:
    """Migration step: every old game whose log replays exactly becomes a record, and its
    ``events`` rows go. A log that does not replay (a damaged store, another engine) stays as
    it is: readers still read it, and report the difference."""
    games = db.execute("SELECT id, seed, rules, totals, outcome FROM games"
                       " WHERE record IS NULL").fetchall()
    for game_id, seed, rules, totals, outcome in games:
        rows = db.execute("SELECT kind, seat, elapsed_ms, data FROM events WHERE game_id=?"
                          " ORDER BY idx", (game_id,)).fetchall()
        log = [LogEntry(k, s, json.loads(d), ms) for k, s, ms, d in rows]
        try:
            record = converted(read_log(log), Rules.from_json(rules), seed, json.loads(totals),
                               json.loads(outcome))
        except RecordError:
            continue
        db.execute("UPDATE games SET record=? WHERE id=?", (record, game_id))
        db.execute("DELETE FROM events WHERE game_id=?", (game_id,))
