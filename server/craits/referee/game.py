"""Playing one game between seats: the decision loop, time control and the failure policy.

``play_game`` owns the engine state; a seat only ever sees what ``observe`` gives it. Every
decision is timed by the referee; faults are handled here and nowhere else (see ``policy``), so
the game always completes whatever the bots do, and the record says what the policy did.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field

import trio

from craits.engine import Event, Game, Move, Outcome, Rules

from .policy import FailurePolicy, Fault, SeatClock, TimeControl, default_move
from .seats import Decision, Seat, SeatGone, SeatResult, Table, TooManyBadReplies


@dataclass(frozen=True, slots=True)
class GameSpec:
    """Everything needed to play (and replay) one game, besides the seats."""

    game_id: str
    rules: Rules
    seed: int
    time: TimeControl = field(default_factory=TimeControl)
    policy: FailurePolicy = field(default_factory=FailurePolicy)


@dataclass(frozen=True, slots=True)
class MoveRecord:
    """One decision as the referee saw it."""

    decision_id: int
    seat: int
    move: Move
    elapsed_ms: float
    defaulted: bool
    """True when the failure policy chose the move."""


@dataclass(slots=True)
class GameResult:
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
    """The state of one game being refereed (kept out of ``play_game`` for short functions)."""

    def __init__(self, spec: GameSpec, seats: Sequence[Seat]) -> None:
        self.spec = spec
        self.seats = seats
        self.game = Game.new(spec.rules, len(seats), spec.seed)
        self.table = Table(spec.game_id, tuple(s.name for s in seats), spec.rules, spec.time)
        self.clocks = [SeatClock(bank_ms=float(spec.time.bank_ms)) for _ in seats]
        self.faults: list[Fault] = []
        self.moves: list[MoveRecord] = []
        self.latencies: list[int] = []
        self.decision_id = 0

    async def run(self) -> GameResult:
        started = time.perf_counter()
        for i, seat in enumerate(self.seats):
            await self._guard(i, seat.start(self.table, i))
        game = self.game
        hands_done = 0
        while not game.is_over:
            await self._turn()
            if len(game.hand_scores) != hands_done:
                hands_done = len(game.hand_scores)
                for i, seat in enumerate(self.seats):
                    await self._guard(i, seat.update(self.table, i, game))
        return await self._finish(time.perf_counter() - started)

    async def _turn(self) -> None:
        game = self.game
        seat = game.to_act
        self.decision_id += 1
        decision = Decision(
            self.table, self.decision_id, seat, game, game.legal_moves(), self.clocks[seat],
            self.spec.policy.max_retries,
        )
        started = time.perf_counter()
        move = await self._ask(decision)
        elapsed_ms = (time.perf_counter() - started) * 1000.0
        defaulted = move is None
        chosen = default_move(decision.legal) if move is None else move
        self.moves.append(MoveRecord(self.decision_id, seat, chosen, elapsed_ms, defaulted))
        game.apply(chosen)

    async def _ask(self, decision: Decision) -> Move | None:
        """The seat's valid move, or None when the failure policy plays for it."""
        clock = decision.clock
        if clock.forfeited:
            return None
        tc, seat = self.spec.time, self.seats[decision.seat]
        while True:
            started = time.perf_counter()
            try:
                with trio.move_on_after(clock.allowance_s(tc)):
                    move = await seat.decide(decision)
                    clock.charge(tc, time.perf_counter() - started)
                    self.latencies.append(clock.last_latency_us)
                    return move
                limit = (tc.move_ms + clock.bank_ms) / 1000.0
                clock.bank_ms = 0.0
                self._fault(decision, "timeout", f"no valid move within {limit:.3f}s")
                return None
            except TooManyBadReplies as exc:
                clock.charge(tc, time.perf_counter() - started)
                self._fault(decision, "bad_replies", exc.last_reason)
                return None
            except SeatGone:
                clock.charge(tc, time.perf_counter() - started)
                if await seat.wait_reconnect(self.spec.policy.grace_ms / 1000.0):
                    continue
                crash = seat.crash_reason
                kind, detail = ("crash", crash) if crash else ("disconnect", "did not come back")
                self._fault(decision, kind, detail, forfeit=True)
                return None
            except Exception as exc:  # a bot's own bug must not stop the game
                self._fault(decision, "error", f"{type(exc).__name__}: {exc}")
                return None

    def _fault(self, decision: Decision, kind: str, detail: str, forfeit: bool = False) -> None:
        clock = decision.clock
        strike = not forfeit
        if strike:
            clock.strikes += 1
            forfeit = clock.strikes >= self.spec.policy.max_strikes
        clock.forfeited = clock.forfeited or forfeit
        fault = Fault(decision.seat, kind, detail, decision.decision_id, strike, forfeit)
        clock.faults.append(fault)
        self.faults.append(fault)

    async def _guard(self, seat: int, step: Awaitable[None]) -> None:
        """Run a seat notification; a failing seat must not stop the game."""
        try:
            await step
        except Exception as exc:
            detail = f"{type(exc).__name__}: {exc}"
            self.faults.append(Fault(seat, "error", detail, 0, False, False))

    async def _finish(self, seconds: float) -> GameResult:
        outcome = self.game.outcome
        assert outcome is not None
        forfeited = tuple(c.forfeited for c in self.clocks)
        result = GameResult(
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


async def play_game(spec: GameSpec, seats: Sequence[Seat]) -> GameResult:
    """Play one whole game between ``seats`` (seat i plays position i) and return its result."""
    return await _Referee(spec, seats).run()
