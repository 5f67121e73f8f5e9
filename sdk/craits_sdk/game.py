"""What the SDK remembers about each game: ``GameInfo`` while it runs, ``GameResult`` at its end.

The referee sends each seat only the history it has not sent it before, so a bot that wants the
whole history (to count cards, to model opponents) would have to stitch increments together. The
SDK does that once, here, keyed by each event's index in the game's log: a message re-sent after a
reconnect adds nothing twice, and a gap (history the bot never received, e.g. after the bot
process itself restarted) is counted rather than silently hidden.

Wire events are kept as protobuf messages until someone reads the history: converting them costs
more than everything else the SDK does for a decision, and most bots never look.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from craits.engine import Event, Rules
from craits.protocol import event_from_pb
from craits.v1 import referee_pb2 as pb


@dataclass(slots=True)
class GameInfo:
    """One game this bot plays in: its seat, the table, the rules and the history so far."""

    game_id: str
    seat: int
    players: tuple[str, ...]
    """Display names by seat."""
    rules: Rules
    move_ms: int = 0
    """Time limit for one decision, in milliseconds (0 when unknown, e.g. offline play)."""
    bank_ms: int = 0
    """Time bank for the game, in milliseconds."""
    next_index: int = 0
    """The log index of the next event expected."""
    missing_events: int = 0
    """Events of the log this bot never received (only after a restart of the bot process)."""
    raw: pb.GameStart | None = None
    """The ``GameStart`` message, when the game came over the wire."""
    _events: list[Event] = field(default_factory=list, init=False, repr=False)
    _unread: list[pb.Event] = field(default_factory=list, init=False, repr=False)
    """Wire events after ``_events``, in log order, not yet converted."""

    @property
    def history(self) -> list[Event]:
        """Every event this seat has seen, in log order (other seats' private cards removed)."""
        if self._unread:
            self._events.extend([_event_of(e) for e in self._unread])
            self._unread.clear()
        return self._events

    @property
    def history_len(self) -> int:
        """``len(history)``, without converting anything."""
        return len(self._events) + len(self._unread)

    def latest(self, count: int) -> tuple[Event, ...]:
        """The last ``count`` events of the history."""
        return tuple(self.history[self.history_len - count :]) if count else ()

    def record(self, events: Sequence[Event], first_index: int) -> int:
        """Add consecutive events from log index ``first_index``; return how many were new.

        Those before ``next_index`` are held already; a gap before ``first_index`` is counted
        in ``missing_events``. One slice, not a test per event: the in-process lane records
        every decision's new events this way, and a generator testing each event's index was a
        sixth of its SDK side.
        """
        start = max(first_index, self.next_index)
        new = events[start - first_index :]
        if not new:
            return 0
        self.missing_events += start - self.next_index
        self.next_index = start + len(new)
        self.history.extend(new)
        return len(new)

    def record_wire(self, events: Iterable[pb.Event]) -> int:
        """Add wire events by log index, skipping those already held; return how many were new.

        A loop with no call per event: this runs for every request, and is all the SDK does
        with its events until someone reads the history.
        """
        unread, start, expected = self._unread, len(self._unread), self.next_index
        for event in events:
            index = event.index
            if index >= expected:
                self.missing_events += index - expected
                expected = index + 1
                unread.append(event)
        self.next_index = expected
        return len(unread) - start


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a game ended, as given to ``Bot.on_game_end``."""

    game_id: str
    seat: int
    totals: tuple[int, ...]
    """Final totals by seat (lower is better)."""
    places: tuple[int, ...]
    """Places by seat (1 = best; equal totals share)."""
    strikes: tuple[int, ...]
    """Strikes each seat received (timeouts, repeated bad replies)."""
    forfeited: tuple[bool, ...]
    """Whether each seat forfeited the game."""
    game: GameInfo
    """The game as this seat knew it, its whole history included."""
    raw: pb.GameEnd | None = None
    """The ``GameEnd`` message, when the game came over the wire."""

    @property
    def events(self) -> tuple[Event, ...]:
        """The game's whole history as this seat saw it (converted from the wire when first
        read, so bots that never look pay nothing; copied on access, so read it once)."""
        return tuple(self.game.history)

    @property
    def place(self) -> int:
        """This bot's place (1 = best); 0 if the referee sent no places."""
        return self.places[self.seat] if self.seat < len(self.places) else 0

    @property
    def total(self) -> int:
        """This bot's final total; 0 if the referee sent no totals."""
        return self.totals[self.seat] if self.seat < len(self.totals) else 0


def _event_of(msg: pb.Event) -> Event:
    """The engine event of a wire event; a malformed one keeps its kind and loses its cards."""
    try:
        return event_from_pb(msg)
    except ValueError:
        return Event(msg.kind, msg.seat if msg.HasField("seat") else -1, detail="unreadable")


def default_names(players: int) -> tuple[str, ...]:
    """Placeholder names for a table whose players were not named (offline play)."""
    return tuple(f"seat {i}" for i in range(players))
