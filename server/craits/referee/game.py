"""Playing one game between seats: the decision loop, time control and the failure policy.

``play_game`` owns the engine state; a seat only ever sees what ``observe`` gives it. Every
decision is timed by the referee; faults are handled here and nowhere else (see ``policy``), so
the game always completes whatever the bots do, and the record says what the policy did.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import trio

from craits.engine import Event, Game, Move, Outcome, Rules
from craits.engine.record import choice_of
from craits.text import printable

from .policy import FailurePolicy, Fault, FaultKind, SeatClock, TimeControl, default_move
from .seats import (
    AnswerTooLate,
    Decision,
    Seat,
    SeatGone,
    SeatResult,
    Table,
    TooManyBadReplies,
)


@dataclass(frozen=True, slots=True)
class GameSpec:
    """Everything needed to play (and replay) one game, besides the seats."""

    game_id: str
    rules: Rules
    seed: int
    time: TimeControl = field(default_factory=TimeControl)
    policy: FailurePolicy = field(default_factory=FailurePolicy)
    seat_times: tuple[TimeControl, ...] = ()
    """A time control per seat, for bots with their own (a tournament's ``[[bots]] move_ms``);
    empty: every seat has ``time``."""

    def time_of(self, seat: int) -> TimeControl:
        """The time control of ``seat``."""
        return self.seat_times[seat] if self.seat_times else self.time


class MoveRecord(NamedTuple):
    """One decision as the referee saw it (a named tuple: one is made per decision)."""

    decision_id: int
    seat: int
    move: Move
    elapsed_ms: float
    defaulted: bool
    """True when the failure policy chose the move."""
    choice: int
    """The move's place among the legal moves (``engine.choice_of``): how the store keeps it."""


@dataclass(slots=True)
class PlayedGame:
    """A finished game: the outcome, places with forfeits ranked last, and the full record."""

    spec: GameSpec
    names: tuple[str, ...]
    outcome: Outcome
    places: tuple[int, ...]
    strikes: tuple[int, ...]
    forfeited: tuple[bool, ...]
    faults: list[Fault]
    moves: list[MoveRecord]
    events: list[Event]
    seconds: float
    latencies_us: list[int] = field(default_factory=list)

    @property
    def totals(self) -> tuple[int, ...]:
        """Final scores by seat (lower is better)."""
        return self.outcome.totals


def final_places(totals: Sequence[int], forfeited: Sequence[bool]) -> tuple[int, ...]:
    """Places by total (ties share), with every forfeited seat ranked after every other seat."""
    pairs = list(zip(totals, forfeited, strict=True))
    kept = [t for t, f in pairs if not f]
    lost = [t for t, f in pairs if f]
    return tuple(
        len(kept) + 1 + sum(1 for o in lost if o < t) if f else 1 + sum(1 for o in kept if o < t)
        for t, f in pairs
    )


class _Referee:
    """The state of one game being refereed (kept out of ``play_game`` for short functions).

    The move clock: the game is played in *stretches*, each inside one trio cancel scope. While
    a seat decides, ``deadline_at`` holds the time its answer is due (a plain attribute: see
    ``_decide``), and one watchdog task per game (``_watch``) cancels the stretch once that time
    has passed: ``run`` then plays the timed-out decision by the policy (``_expire``) and starts
    the next stretch. The watchdog sleeps until the open decision's deadline or one move limit
    from now, whichever is sooner: a decision opened later is due at least one move limit after
    it opens, so never before the watchdog wakes, and nothing has to wake it early. It wakes
    about once per move limit, whatever the number of decisions. Trio's own deadlines cost more
    per decision: a fresh ``move_on_after`` ~20 us, moving an entered scope's deadline there and
    back ~10 us (4% of the referee's instructions per decision), the largest scheduling cost.
    """

    def __init__(self, spec: GameSpec, seats: Sequence[Seat],
                 now: Callable[[], float] = time.perf_counter,
                 watch: Callable[[Game], None] | None = None) -> None:
        self.spec = spec
        self.watch = watch
        """Told the game after its deal and after every move (see ``play_game``)."""
        self.seats = seats
        self.now = now
        """What the bots' time is charged by (see ``play_game``)."""
        self.game = Game.new(spec.rules, len(seats), spec.seed)
        self.table = Table(spec.game_id, tuple(s.name for s in seats), spec.rules, spec.time,
                           spec.seat_times)
        self.clocks = [SeatClock(bank_ms=float(spec.time_of(i).bank_ms))
                       for i in range(len(seats))]
        self.faults: list[Fault] = []
        self.moves: list[MoveRecord] = []
        self.latencies: list[int] = []
        self.decision_id = 0
        self.hands_told = 0
        self.stretch = trio.CancelScope()
        self.deadline_at = math.inf
        """When the seat deciding now must have answered (trio time); inf while none decides."""
        self.watching = trio.CancelScope()
        self.move_s = min(spec.time_of(i).move_ms for i in range(len(seats))) / 1000.0
        self.open: Decision | None = None
        """The decision being asked, from its request until its move is applied."""
        self.opened_at = 0.0
        self.overdue_limit_s = 0.0
        """The time the last overdue decision had, noted by the watchdog before it cancels
        (the cancellation charges the seat's clock on its way out of ``_decide``)."""

    async def run(self) -> PlayedGame:
        started = self.now()
        # a system task rather than a nursery child: the game's own exceptions stay unwrapped
        trio.lowlevel.spawn_system_task(self._watch, name=f"move clock {self.spec.game_id}")
        try:
            for i, seat in enumerate(self.seats):
                await self._guard(i, seat.start(self.table, i))
            if self.watch is not None:
                self.watch(self.game)
            while not self.game.is_over:
                with trio.CancelScope() as self.stretch:
                    await self._play_stretch()
                if self.stretch.cancelled_caught:
                    self._expire()
        finally:
            self.watching.cancel()
        await self._tell_hands()
        return await self._finish(self.now() - started)

    async def _watch(self) -> None:
        """Cancel the stretch when the deciding seat's deadline passes (see the class doc)."""
        with self.watching:
            while True:
                now = trio.current_time()
                if self.deadline_at <= now:
                    self._overdue()
                await trio.sleep_until(min(self.deadline_at, now + self.move_s))

    def _overdue(self) -> None:
        """The open decision's deadline has passed: note the time it had, cancel the stretch."""
        decision = self.open
        assert decision is not None, "a move deadline passed with no decision open"
        self.overdue_limit_s = decision.clock.allowance_s(self.spec.time_of(decision.seat))
        self.deadline_at = math.inf
        self.stretch.cancel()

    async def _play_stretch(self) -> None:
        """Turns until the game ends or this stretch's scope has been cancelled.

        A deadline may pass just as its reply arrives: the move counts (it was valid when the
        seat's task resumed), and the stretch ends right after it, before any checkpoint could
        deliver the cancellation to the next decision.
        """
        game = self.game
        while not game.is_over:
            await self._tell_hands()
            await self._turn()
            if self.stretch.cancel_called:
                return

    async def _tell_hands(self) -> None:
        """Send the public events of hands that ended since the last call to every seat."""
        game = self.game
        if len(game.hand_scores) != self.hands_told:
            self.hands_told = len(game.hand_scores)
            for i, seat in enumerate(self.seats):
                await self._guard(i, seat.update(self.table, i, game))

    async def _turn(self) -> None:
        game = self.game
        seat = game.to_act
        self.decision_id += 1
        decision = Decision(
            self.table, self.decision_id, seat, game, game.legal_moves(), self.clocks[seat],
            self.spec.policy.max_retries,
        )
        self.open, self.opened_at = decision, self.now()
        self._close(await self._ask(decision))

    def _close(self, move: Move | None) -> None:
        """Record and apply the open decision's move (the policy's when ``move`` is None)."""
        decision = self.open
        assert decision is not None
        self.open = None
        elapsed_ms = (self.now() - self.opened_at) * 1000.0
        chosen = default_move(decision.legal) if move is None else move
        self.moves.append(
            MoveRecord(decision.decision_id, decision.seat, chosen, elapsed_ms, move is None,
                       choice_of(decision.legal, chosen))
        )
        self.game.apply(chosen)
        if self.watch is not None:
            self.watch(self.game)

    def _expire(self) -> None:
        """The open decision ran out of time: a strike, the bank is spent, the policy plays."""
        decision = self.open
        assert decision is not None, "a move deadline passed with no decision open"
        decision.clock.bank_ms = 0.0
        self._fault(
            decision, FaultKind.TIMEOUT, f"no valid move within {self.overdue_limit_s:.3f}s"
        )
        self._close(None)

    async def _ask(self, decision: Decision) -> Move | None:
        """The seat's valid move, or None when the failure policy plays for it.

        A timeout does not return here: it cancels the stretch (see the class docstring).
        """
        clock = decision.clock
        if clock.forfeited:
            return None
        seat = self.seats[decision.seat]
        while True:
            try:
                move = await self._decide(seat, decision)
            except TooManyBadReplies as exc:
                self._fault(decision, FaultKind.BAD_REPLIES, exc.last_reason)
                return None
            except AnswerTooLate as exc:
                clock.bank_ms = 0.0
                self._fault(decision, FaultKind.TIMEOUT, str(exc))
                return None
            except SeatGone:
                if await self._wait_back(seat, clock):
                    continue
                crash = seat.crash_reason
                kind, detail = ((FaultKind.CRASH, crash) if crash
                                else (FaultKind.DISCONNECT, "did not come back"))
                self._fault(decision, kind, detail, forfeit=True)
                return None
            except Exception as exc:  # a bot's own bug must not stop the game
                self._fault(decision, FaultKind.ERROR, f"{type(exc).__name__}: {exc}")
                return None
            self.latencies.append(clock.last_latency_us)
            return move

    async def _wait_back(self, seat: Seat, clock: SeatClock) -> bool:
        """Wait for a gone seat's bot to reconnect, within what is left of its grace period."""
        left_s = self.spec.policy.grace_ms / 1000.0 - clock.away_s
        if left_s <= 0:
            return False
        started = self.now()
        try:
            return await seat.wait_reconnect(left_s)
        finally:
            clock.away_s += self.now() - started

    async def _decide(self, seat: Seat, decision: Decision) -> Move:
        """``seat.decide``, due the seat's allowance from now (the watchdog enforces it).

        However it ends (a move, a bad reply too many, a dropped bot, a bot's bug, a timeout),
        the time it took is charged to the seat's bank, in one place. Time spent waiting for a
        dropped bot to come back is not: it is outside this call (``_wait_back``).
        """
        clock, tc = decision.clock, self.spec.time_of(decision.seat)
        started = self.now()
        self.deadline_at = trio.current_time() + clock.allowance_s(tc)  # >= one move limit
        try:
            return await seat.decide(decision)
        finally:
            self.deadline_at = math.inf
            clock.charge(tc, self.now() - started)

    def _fault(
        self, decision: Decision, kind: FaultKind, detail: str, forfeit: bool = False
    ) -> None:
        clock = decision.clock
        strike = not forfeit
        if strike:
            clock.strikes += 1
            forfeit = clock.strikes >= self.spec.policy.max_strikes
        clock.forfeited = clock.forfeited or forfeit
        # The detail may quote the bot (its reply, its last stderr line): shown, never obeyed.
        fault = Fault(decision.seat, kind, printable(detail), decision.decision_id, strike,
                      forfeit)
        clock.faults.append(fault)
        self.faults.append(fault)

    async def _guard(self, seat: int, step: Awaitable[None]) -> None:
        """Run a seat notification; a failing seat must not stop the game."""
        try:
            await step
        except Exception as exc:
            detail = f"{type(exc).__name__}: {exc}"
            self.faults.append(Fault(seat, FaultKind.ERROR, printable(detail), 0, False, False))

    async def _finish(self, seconds: float) -> PlayedGame:
        outcome = self.game.outcome
        assert outcome is not None
        forfeited = tuple(c.forfeited for c in self.clocks)
        result = PlayedGame(
            spec=self.spec,
            names=self.table.players,
            outcome=outcome,
            places=final_places(outcome.totals, forfeited),
            strikes=tuple(c.strikes for c in self.clocks),
            forfeited=forfeited,
            faults=self.faults,
            moves=self.moves,
            events=self.game.events,
            seconds=seconds,
            latencies_us=self.latencies,
        )
        told = SeatResult(outcome.totals, result.places, result.strikes, forfeited)
        for i, seat in enumerate(self.seats):
            await self._guard(i, seat.finish(self.table, i, told))
        return result


async def play_game(spec: GameSpec, seats: Sequence[Seat],
                    now: Callable[[], float] = time.perf_counter,
                    watch: Callable[[Game], None] | None = None) -> PlayedGame:
    """Play one whole game between ``seats`` (seat i plays position i) and return its result.

    ``now`` is the clock that times each decision and charges the banks and the grace periods:
    the wall clock, since a bot's time is real time. The deadlines themselves are trio's, so a
    test on trio's virtual clock (``MockClock``) passes ``trio.current_time`` to have both on
    one clock.

    ``watch``, if given, is called with the live game after the deal and after every move
    (synchronously, in the game's task): a seat-independent observer for spectators, which
    must redact what it reads itself (``Event.seen_by``) and must not block or change the game.
    """
    return await _Referee(spec, seats, now, watch).run()
