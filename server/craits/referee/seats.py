"""The seat interface: what the referee needs from anything that makes decisions for a seat.

A seat is told when a game starts, asked for decisions, sent public updates and told the result.
Implementations: ``InProcessSeat`` (a Python bot object in this process) here, and ``RemoteSeat``
(a bot process over gRPC) in ``remote_seat``. The referee wraps every ``decide`` in the time
limit and the failure policy; a seat only transports the question and the answers, and uses
``Decision.validate`` so that legality is judged in one place.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from craits.engine import Game, IllegalMove, Move, Observation, Rules, observe

from .policy import SeatClock, TimeControl


class SeatGone(Exception):
    """The seat's bot disconnected while a decision was open; the referee may wait for it."""


class AnswerTooLate(Exception):
    """An in-process seat answered after its time had run out.

    Python cannot pre-empt a function call, so a seat that runs the bot in the referee's own
    thread cannot be cut off when its time is up; it raises this once the answer comes back, and
    the referee charges the timeout after the fact (a strike, the bank spent, the policy's move
    played instead of the late one), as it would have at the deadline for a bot process.
    """

    def __init__(self, elapsed_s: float, allowed_s: float) -> None:
        super().__init__(f"answered after {elapsed_s:.3f}s, over its {allowed_s:.3f}s "
                         "(in process: charged after the fact)")


class TooManyBadReplies(Exception):
    """The seat exhausted the retries for one decision."""

    def __init__(self, last_reason: str) -> None:
        super().__init__(last_reason)
        self.last_reason = last_reason


@dataclass(frozen=True, slots=True)
class Table:
    """What every seat is told at game start."""

    game_id: str
    players: tuple[str, ...]
    rules: Rules
    time: TimeControl
    seat_times: tuple[TimeControl, ...] = ()
    """Each seat's own time control, when they differ (empty: every seat has ``time``)."""

    def time_for(self, seat: int) -> TimeControl:
        """The time control ``seat`` plays under, as it is told at game start."""
        return self.seat_times[seat] if self.seat_times else self.time


@dataclass(frozen=True, slots=True)
class SeatResult:
    """What a seat is told at game end."""

    totals: tuple[int, ...]
    places: tuple[int, ...]
    strikes: tuple[int, ...]
    forfeited: tuple[bool, ...]


@dataclass(slots=True)
class Decision:
    """One open decision: the question, and the single judge of the answers."""

    table: Table
    decision_id: int
    seat: int
    game: Game
    legal: Sequence[Move]
    clock: SeatClock
    max_retries: int
    rejections: list[str] = field(default_factory=list)

    def validate(self, move: Move) -> None:
        """Raise ``IllegalMove`` if the game would refuse ``move``."""
        self.game.check(move)

    def reject(self, reason: str) -> None:
        """Count a bad reply; raise ``TooManyBadReplies`` if it was one too many.

        ``max_retries`` bad replies are forgiven; the one after them costs a strike.
        ``retries_left`` says how many more replies will be considered.
        """
        self.rejections.append(reason)
        if len(self.rejections) > self.max_retries:
            raise TooManyBadReplies(reason)

    @property
    def retries_left(self) -> int:
        """Further replies the referee will still consider for this decision (0: closed)."""
        return max(0, self.max_retries + 1 - len(self.rejections))


class Seat(ABC):
    """Anything that can play a seat. ``name`` is what standings show."""

    name: str

    @abstractmethod
    async def start(self, table: Table, seat: int) -> None:
        """A game begins with this seat at position ``seat``."""

    @abstractmethod
    async def decide(self, decision: Decision) -> Move:
        """A move valid under ``decision.validate``; may raise SeatGone or TooManyBadReplies."""

    async def update(self, table: Table, seat: int, game: Game) -> None:  # noqa: B027
        """Public events happened (a hand ended); the default ignores them."""

    async def finish(self, table: Table, seat: int, result: SeatResult) -> None:  # noqa: B027
        """The game is over; the default ignores it."""

    async def wait_reconnect(self, grace_s: float) -> bool:
        """After ``SeatGone``: wait up to ``grace_s`` for the bot to return (default: never)."""
        return False

    @property
    def crash_reason(self) -> str | None:
        """Why the seat's bot is known to have died (None: not known dead, maybe just away)."""
        return None


Policy = Callable[[Observation, Rules], Move]
"""An in-process decision function: (observation, rules) -> move."""


class InProcessSeat(Seat):
    """A seat played by a Python function in this process (no network, no threads)."""

    def __init__(self, name: str, policy: Policy) -> None:
        self.name = name
        self._policy = policy
        self._seen = 0

    async def start(self, table: Table, seat: int) -> None:
        """Start a fresh history for the new game."""
        self._seen = 0

    async def decide(self, decision: Decision) -> Move:
        """Ask the policy; an illegal answer counts as a bad reply and the policy is asked again.

        The observation carries only the events since this seat's previous decision, so that a
        long game does not cost quadratic time; policies that want the history keep it.
        """
        view = observe(decision.game, decision.seat, self._seen)
        self._seen = len(decision.game.events)
        while True:
            move = self._policy(view, decision.table.rules)
            try:
                decision.validate(move)
                return move
            except IllegalMove as exc:
                decision.reject(str(exc))
