"""What the runner hands to the store when a game ends, and how a game's log reads back.

The store keeps one flat log a game: every engine event under its own kind (``deal``,
``play``, ...), then each bot's answer (``move``), then each action of the failure policy
(``strike``, ``forfeit``, or ``fault``: noted, no sanction). ``game_log`` writes that layout
from what the referee recorded and ``read_log`` splits it again for replays and reports, so
the kinds and their fields are stated in this one module. ``Store.record_game`` writes a
``FinishedGame`` in one transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from craits.engine import Event, Move, MoveError

if TYPE_CHECKING:  # for annotations only: reading stored games must not import trio
    from craits.referee.game import MoveRecord
    from craits.referee.policy import Fault

MOVE: Final = "move"
FAULT_ACTIONS: Final = ("strike", "forfeit", "fault")
REFEREE_KINDS: Final = frozenset({MOVE, *FAULT_ACTIONS})
"""Log kinds the referee adds; every other kind is an engine event's."""


class LogError(ValueError):
    """A stored log entry cannot be read back (a missing field, a move that does not parse)."""


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One line of a game's log: an engine event, a bot's move, a failure-policy action.

    ``elapsed_ms`` is the time a bot took to answer, for moves.
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


@dataclass(frozen=True, slots=True)
class LoggedMove:
    """One move the referee applied, read back from the log, with who made it and how."""

    seat: int
    move: Move
    decision: int
    """The referee's decision number (0 when the log does not say)."""
    elapsed_ms: float | None
    defaulted: bool
    """True when the failure policy chose the move for a seat that did not answer in time."""


@dataclass(frozen=True, slots=True)
class LoggedFault:
    """A strike, forfeit or other fault the referee logged against a seat, read back."""

    action: str
    """``strike``, ``forfeit`` or ``fault`` (noted, no sanction)."""
    seat: int
    reason: str
    """What went wrong: timeout, bad_replies, crash, disconnect, error."""
    detail: str
    decision: int


@dataclass(frozen=True, slots=True)
class GameLog:
    """A stored log split by who wrote each entry."""

    moves: tuple[LoggedMove, ...]
    events: tuple[Mapping[str, Any], ...]
    """The engine events as stored (``Event.to_dict`` form)."""
    faults: tuple[LoggedFault, ...]


def game_log(
    events: Iterable[Event], moves: Iterable[MoveRecord], faults: Iterable[Fault]
) -> tuple[LogEntry, ...]:
    """The log the store keeps of a refereed game: its events, moves and faults, in that order."""
    return (
        *(LogEntry(e.kind, e.seat, e.to_dict()) for e in events),
        *(LogEntry(MOVE, m.seat, {"decision": m.decision_id, "move": str(m.move),
                                  "defaulted": m.defaulted}, round(m.elapsed_ms, 3))
          for m in moves),
        *(LogEntry(_action(f), f.seat, {"kind": f.kind, "detail": f.detail,
                                        "decision": f.decision_id})
          for f in faults),
    )


def _action(fault: Fault) -> str:
    return "forfeit" if fault.forfeit else "strike" if fault.strike else "fault"


def read_log(log: Iterable[LogEntry]) -> GameLog:
    """Split a stored log into moves, engine events and faults (``LogError`` if unreadable)."""
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
