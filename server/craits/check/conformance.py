"""The conformance kit behind ``craits check``: a bot process against every kind of decision.

A bot author wants to know before a contest that the bot connects, understands every decision
the rules can ask (the count, suits after an 8 or 9, a 6's replay, "one card", the dealer's
upturned card, face-card runs) and answers each legally and in time, and that it survives a
whole game's updates and end. Each scripted position (``positions``) is asked through the real
referee path, a ``RemoteSeat`` over loopback gRPC judged by ``Decision.validate``, with no
retries: a conformant bot answers right the first time. Then one short game is played against
in-process random seats, and one more position checks the bot still answers after ``GameEnd``.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import trio

from craits.engine import Game, Move, Observation, Rules, places
from craits.hosting.launcher import LaunchError, display_name
from craits.hosting.running import NotConnected, Running, connect_all, running_bots
from craits.hosting.sandbox import SandboxLimits
from craits.referee.game import GameSpec, PlayedGame, play_game
from craits.referee.policy import FailurePolicy, SeatClock, TimeControl
from craits.referee.remote_seat import RemoteSeat
from craits.referee.seats import (
    Decision,
    InProcessSeat,
    SeatGone,
    SeatResult,
    Table,
    TooManyBadReplies,
)

from .positions import PLAYERS, POSITIONS, STANDARD, Position, position

OPPONENTS: Final = ("random-1", "random-2")
"""The scripted or in-process seats beside the checked bot (seats 1 and 2)."""


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """How ``run_checks`` runs: the per-decision limit and where the game and logs come from."""

    move_ms: int = 1000
    seed: int = 1
    connect_timeout_s: float = 15.0
    log_dir: Path | None = None
    limits: SandboxLimits | None = None
    """Run the bot in the sandbox an adversarial tournament gives it, under these limits."""


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One check: passed or not, the bot's latency, and the move it chose or what went wrong."""

    name: str
    passed: bool
    latency_ms: float | None
    detail: str
    about: str = ""
    legal: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (latency rounded to 0.1 ms)."""
        latency = None if self.latency_ms is None else round(self.latency_ms, 1)
        return {"name": self.name, "passed": self.passed, "latency_ms": latency,
                "detail": self.detail, "about": self.about, "legal": list(self.legal)}


@dataclass(slots=True)
class Report:
    """Every check run against one bot SPEC."""

    spec: str
    bot: str
    move_ms: int
    stderr_log: str = ""
    checks: list[CheckResult] = field(default_factory=list)

    @property
    def passed(self) -> int:
        """How many checks passed."""
        return sum(c.passed for c in self.checks)

    @property
    def failed(self) -> int:
        """How many checks failed."""
        return len(self.checks) - self.passed

    @property
    def ok(self) -> bool:
        """True when every check ran and passed."""
        return bool(self.checks) and self.failed == 0

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` object."""
        return {"spec": self.spec, "bot": self.bot, "move_ms": self.move_ms, "ok": self.ok,
                "passed": self.passed, "failed": self.failed, "stderr_log": self.stderr_log,
                "checks": [c.to_dict() for c in self.checks]}


async def run_checks(spec: str, options: CheckOptions = CheckOptions()) -> Report:
    """Launch the bot, run every check in order, stop the bot; never raises for a bot's fault."""
    name = display_name(spec)
    report = Report(spec, name, options.move_ms)
    logs = options.log_dir or Path(tempfile.mkdtemp(prefix="craits-check-"))
    try:
        async with running_bots([spec], [name], logs, limits=options.limits) as running:
            report.stderr_log = str(running.bots[0].stderr_path)
            if await _connect(running, options, report):
                await _run_all(_Checker(running, options), report)
    except LaunchError as exc:
        report.checks.append(CheckResult("connect", False, None, str(exc)))
    return report


async def _connect(running: Running, options: CheckOptions, report: Report) -> bool:
    """The first check: the process starts and says Hello with its token."""
    started = time.perf_counter()
    try:
        await connect_all(running, options.connect_timeout_s)
    except NotConnected as exc:
        report.checks.append(CheckResult("connect", False, None, str(exc)))
        return False
    ms = (time.perf_counter() - started) * 1000.0
    report.checks.append(CheckResult("connect", True, ms, "connected and welcomed"))
    return True


async def _run_all(checker: _Checker, report: Report) -> None:
    steps: list[Callable[[], Awaitable[CheckResult]]] = [
        *(lambda p=p: checker.position(p) for p in POSITIONS),
        checker.full_game,
        lambda: checker.position(position("play"), "after-game"),
    ]
    for step in steps:
        report.checks.append(await step())


class _Checker:
    """Runs single checks against one connected bot (one fresh game id per check)."""

    def __init__(self, running: Running, options: CheckOptions) -> None:
        self.hub = running.hub
        self.entry = running.bots[0].entry
        self.options = options
        self.tc = TimeControl(options.move_ms, 0)
        self.games = 0

    def _table(self, label: str, rules: Rules) -> Table:
        self.games += 1
        players = (self.entry.name, *OPPONENTS)
        return Table(f"check-{self.games:02d}-{label}", players, rules, self.tc)

    async def position(self, pos: Position, label: str | None = None) -> CheckResult:
        """Ask the bot the position's one decision and judge the answer."""
        game = pos.build()
        name = label or pos.name
        legal = tuple(str(m) for m in game.legal_moves())
        seat = self.hub.seat_for(self.entry)
        table = self._table(name, game.rules)
        await seat.start(table, 0)
        try:
            move, ms, problem = await self._ask(seat, table, game)
        finally:
            await seat.finish(table, 0, _abandoned(game))
        problem = problem or (pos.expect(move) if move is not None else None)
        detail = problem or str(move)
        return CheckResult(name, problem is None, ms, detail, pos.about, legal)

    async def _ask(
        self, seat: RemoteSeat, table: Table, game: Game
    ) -> tuple[Move | None, float | None, str | None]:
        """(move, latency ms, problem): one decision, no retries, ``move_ms`` and no bank."""
        decision = Decision(table, 1, 0, game, game.legal_moves(), SeatClock(0.0), max_retries=0)
        started = time.perf_counter()
        with trio.move_on_after(self.options.move_ms / 1000.0):
            try:
                move = await seat.decide(decision)
            except TooManyBadReplies as exc:
                return None, _ms_since(started), f"reply refused: {exc.last_reason}"
            except SeatGone:
                return None, None, f"bot disconnected: {seat.crash_reason or 'stream closed'}"
            return move, _ms_since(started), None
        return None, None, f"no valid answer within {self.options.move_ms} ms"

    async def full_game(self) -> CheckResult:
        """A short game against two in-process random seats: updates, hand ends, GameEnd."""
        rules = STANDARD.replace(short_game=True)
        table = self._table("game", rules)
        spec = GameSpec(table.game_id, rules, self.options.seed, self.tc,
                        FailurePolicy(max_retries=0, max_strikes=3, grace_ms=2000))
        rng = random.Random(self.options.seed)
        seats = [self.hub.seat_for(self.entry),
                 *(InProcessSeat(n, _random_policy(rng)) for n in OPPONENTS)]
        result = await play_game(spec, seats)
        return _judge_game(result)


def _judge_game(result: PlayedGame) -> CheckResult:
    """Pass when the bot's seat had no fault and every hand was played."""
    mine = [m.elapsed_ms for m in result.moves if m.seat == 0 and not m.defaulted]
    faults = [f for f in result.faults if f.seat == 0]
    hands = result.outcome.hands_played
    about = f"a short game ({hands} hands) against two random seats"
    worst = max(mine, default=None)
    if faults:
        shown = "; ".join(f"{f.kind} at decision {f.decision_id}: {f.detail}" for f in faults[:3])
        more = f" (+{len(faults) - 3} more)" if len(faults) > 3 else ""
        return CheckResult("full-game", False, worst, f"{len(faults)} fault(s): {shown}{more}",
                           about)
    median = statistics.median(mine) if mine else 0.0
    detail = (f"{len(mine)} decisions over {hands} hands, median {median:.1f} ms, "
              f"max {worst or 0.0:.1f} ms, place {result.places[0]} of {len(result.names)}")
    return CheckResult("full-game", True, worst, detail, about)


def _random_policy(rng: random.Random) -> Callable[[Observation, Rules], Move]:
    """A seeded uniformly random opponent (in process: it must never be the thing that fails)."""
    return lambda view, rules: rng.choice(view.legal_moves)


def _abandoned(game: Game) -> SeatResult:
    """What ``GameEnd`` says for a scripted position once its one decision is over."""
    totals = tuple(game.totals)
    zeros = (0,) * PLAYERS
    return SeatResult(totals, tuple(places(list(totals))), zeros, (False,) * PLAYERS)


def _ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0
