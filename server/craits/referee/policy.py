"""Time control and the failure policy: the one place that decides what a misbehaving seat costs.

A decision may take ``move_ms``; beyond that the seat's per-game ``bank_ms`` is drawn on. When a
decision runs out of time, or a seat sends more bad replies than ``max_retries`` allows, the seat
gets a strike and the default move is played for it. After ``max_strikes`` strikes, a crash, or a
disconnection longer than ``grace_ms``, the seat forfeits: the default move plays for it to the
end, and it is ranked last. Every application is recorded as a ``Fault``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from craits.engine import Move, MoveKind

LIMITS: Final = {
    "move_ms": (1, 3_600_000),
    "bank_ms": (0, 86_400_000),
    "max_retries": (0, 1_000_000),
    "max_strikes": (1, 1_000_000),
    "grace_ms": (0, 3_600_000),
}
"""The range of each time-control and policy number, wherever it is read (command-line options,
tournament files): an hour per decision, a day of bank, a million retries or strikes, an hour
away; all far inside the wire's 32-bit fields."""


@dataclass(frozen=True, slots=True)
class TimeControl:
    """Per-move limit plus a per-game bank, both in milliseconds."""

    move_ms: int = 1000
    bank_ms: int = 10_000

    def __post_init__(self) -> None:
        if self.move_ms <= 0 or self.bank_ms < 0:
            raise ValueError("time control needs move_ms > 0 and bank_ms >= 0")


@dataclass(frozen=True, slots=True)
class FailurePolicy:
    """How many mistakes a seat may make, and how long it may be away."""

    max_retries: int = 2
    """Bad replies tolerated per decision (each answered in band) before a strike."""
    max_strikes: int = 3
    """Strikes after which the seat forfeits the game."""
    grace_ms: int = 5000
    """How long a seat may be away in one game, all its disconnections together, before it
    forfeits. A total rather than a limit per disconnection: otherwise a bot could hold a table
    for most of ``grace_ms`` at every decision by dropping and coming back, without penalty."""

    def __post_init__(self) -> None:
        if self.max_retries < 0 or self.max_strikes < 1 or self.grace_ms < 0:
            raise ValueError(
                "failure policy needs max_retries >= 0, max_strikes >= 1, grace_ms >= 0"
            )


class FaultKind(StrEnum):
    """What went wrong with a seat: a ``StrEnum`` whose values are the words game records always
    stored, so a record, its JSON and every printed line are what they were."""

    TIMEOUT = "timeout"
    """No valid move within the time allowed."""
    BAD_REPLIES = "bad_replies"
    """Too many replies refused for one decision."""
    DISCONNECT = "disconnect"
    """The bot went away and did not come back within the grace period."""
    CRASH = "crash"
    """The bot's process died."""
    ERROR = "error"
    """The bot's own code raised (an in-process seat), or a notification failed."""

    def __repr__(self) -> str:
        """The string's own ``repr``, as when kinds were strings (a ``Fault``'s repr)."""
        return str.__repr__(self)


@dataclass(frozen=True, slots=True)
class Fault:
    """One application of the failure policy, as stored in the game record."""

    seat: int
    kind: str
    """A ``FaultKind`` when the referee records it; typed ``str`` so that a fault read back from
    a store, or written by hand in a test, is one too."""
    detail: str
    decision_id: int
    strike: bool
    forfeit: bool


def default_move(legal: Sequence[Move]) -> Move:
    """The move played for a seat that failed to answer: draw if allowed, else the first legal move.

    Drawing is the most neutral choice (it never spends a card the bot might have kept), and the
    first legal move is deterministic, so replays of games with faults stay reproducible.
    """
    for move in legal:
        if move.kind is MoveKind.DRAW:
            return move
    return legal[0]


@dataclass(slots=True)
class SeatClock:
    """One seat's remaining bank and fault count within one game."""

    bank_ms: float
    strikes: int = 0
    forfeited: bool = False
    last_latency_us: int = 0
    faults: list[Fault] = field(default_factory=list)
    away_s: float = 0.0
    """Time spent waiting for this seat's bot to reconnect, this game (``grace_ms`` bounds it)."""

    def allowance_s(self, tc: TimeControl) -> float:
        """Seconds this seat may take for its next decision."""
        return (tc.move_ms + self.bank_ms) / 1000.0

    def charge(self, tc: TimeControl, elapsed_s: float) -> None:
        """Deduct time beyond the per-move limit from the bank."""
        over_ms = elapsed_s * 1000.0 - tc.move_ms
        if over_ms > 0:
            self.bank_ms = max(0.0, self.bank_ms - over_ms)
