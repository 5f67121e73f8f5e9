"""What the SDK remembers about each game: ``GameInfo`` while it runs, ``GameResult`` at its end.

The referee sends each seat only the history it has not sent it before, so a bot that wants the
whole history (to count cards, to model opponents) would have to stitch increments together. The
SDK does that once, here, keyed by each event's index in the game's log: a message re-sent after a
reconnect adds nothing twice, and a gap (history the bot never received, e.g. after the bot
process itself restarted) is counted rather than silently hidden.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from craits.engine import Event, Rules
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
    history: list[Event] = field(default_factory=list)
    """Every event this seat has seen, in log order (other seats' private cards removed)."""
    next_index: int = 0
    """The log index of the next event expected."""
    missing_events: int = 0
    """Events of the log this bot never received (only after a restart of the bot process)."""
    raw: pb.GameStart | None = None
    """The ``GameStart`` message, when the game came over the wire."""

    @property
    def player_count(self) -> int:
        """How many seats the table has."""
        return len(self.players)

    def record(self, events: Sequence[Event], first_index: int) -> tuple[Event, ...]:
        """Add consecutive events starting at log index ``first_index``; return the new ones."""
        return self.record_indexed(enumerate(events, first_index))

    def record_indexed(self, pairs: Iterable[tuple[int, Event]]) -> tuple[Event, ...]:
        """Add ``(log index, event)`` pairs, skipping any already held; return the new ones."""
        new: list[Event] = []
        for index, event in pairs:
            if index < self.next_index:
                continue
            self.missing_events += index - self.next_index
            new.append(event)
            self.next_index = index + 1
        self.history.extend(new)
        return tuple(new)


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
    events: tuple[Event, ...]
    """The game's whole history as this seat saw it."""
    raw: pb.GameEnd | None = None
    """The ``GameEnd`` message, when the game came over the wire."""

    @property
    def place(self) -> int:
        """This bot's place (1 = best); 0 if the referee sent no places."""
        return self.places[self.seat] if self.seat < len(self.places) else 0

    @property
    def total(self) -> int:
        """This bot's final total; 0 if the referee sent no totals."""
        return self.totals[self.seat] if self.seat < len(self.totals) else 0


def default_names(players: int) -> tuple[str, ...]:
    """Placeholder names for a table whose players were not named (offline play)."""
    return tuple(f"seat {i}" for i in range(players))
