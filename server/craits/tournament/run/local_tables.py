"""Playing scheduled jobs with a bot pool: what every process that plays tables does.

``LocalTables`` turns a claimed ``Job`` into a ``FinishedGame`` (the seats from the pool, the game
through the referee, the log as the store keeps it) and nothing else: claiming and recording stay
with the one process that owns the store, whether the tables are in that process (one worker) or
in worker processes that send their games back to it (``workers``).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import trio

from craits.engine import Game, Rules
from craits.referee.game import GameSpec, PlayedGame, play_game
from craits.referee.listener import TlsFiles
from craits.referee.policy import TimeControl
from craits.referee.server import Referee, open_referee
from craits.tournament.plan.config import TournamentConfig
from craits.tournament.plan.schedule import Job, phase_of, stored_game_id
from craits.tournament.store.game_records import FinishedGame, PlayLog

from .botpool import BotPool, Isolation


class LocalTables:
    """Tables played in this process, with this process's bots."""

    def __init__(self, pool: BotPool, config: TournamentConfig, tournament_id: str) -> None:
        self.pool = pool
        self.config = config
        self.tid = tournament_id
        self.busy: Counter[str] = Counter()
        """Tables each bot sits at here now (the runner counts them against its limit)."""
        self.phase: int | None = None
        """The seating this place's sandboxed processes play in a seating-major run (None
        before its first job, and in runs without phases)."""
        self._phasing = trio.Lock()
        self.watch: Callable[[Job], Callable[[Game], None]] | None = None
        """Gives each job's game an observer (``play_game``'s ``watch``): how the contest's
        live games are fed; None: no observer."""

    async def enter_phase(self, phase: int) -> None:
        """Start seating ``phase`` here: end every sandboxed bot process that played another
        seating (``BotPool.end_isolated``). The claim order guarantees that no game of an
        earlier seating is still being played anywhere when the first job of a new one is
        claimed (``Store.claim_next``); the processes started before the first job have seen
        nothing and are kept."""
        async with self._phasing:
            if self.phase != phase:
                if self.phase is not None:
                    await self.pool.end_isolated()
                self.phase = phase

    async def play(self, job: Job) -> FinishedGame:
        """Play the job's game to the end and return what the store keeps of it."""
        phase = phase_of(self.config, job)
        if phase is not None:
            await self.enter_phase(phase)
        seats = [await self.pool.seat(name, self._slot(job, name)) for name in job.seats]
        spec = GameSpec(
            stored_game_id(job, self.config.seed), Rules.from_json(job.rules_json), job.seed,
            job.time, job.failure, self._seat_times(job),
        )
        started = time.time()
        watch = None if self.watch is None else self.watch(job)
        result = await play_game(spec, seats, watch=watch)
        return finished_game(self.tid, job, result, started)

    def _seat_times(self, job: Job) -> tuple[TimeControl, ...]:
        """Each seat's time control: its bot's own (``[[bots]] move_ms``, ``bank_ms``), else the
        job's; empty when every seat plays under the job's."""
        times = tuple(self.config.bot(name).time_control(job.time) for name in job.seats)
        return () if all(t == job.time for t in times) else times

    def _slot(self, job: Job, name: str) -> int:
        """Which of the bot's processes plays this game: for an isolated bot at duplicate
        deals, the one for this seating, so that no process ever sees two seatings of one deal
        set (it would know from one what the others hold in the next); else its only one."""
        if self.config.isolated(name) and not self.config.independent(job.meeting):
            return job.rotation
        return 0


def finished_game(tid: str, job: Job, result: PlayedGame, started: float) -> FinishedGame:
    """What the store keeps of a refereed game: result, every move with its timing, faults."""
    outcome = result.outcome
    return FinishedGame(
        tournament_id=tid, game_index=job.game_index, totals=result.totals,
        places=result.places, strikes=result.strikes, forfeited=result.forfeited,
        started=started, finished=time.time(),
        play=PlayLog.of(result.moves, result.faults),
        outcome={"hands_played": outcome.hands_played, "hand_scores": outcome.hand_scores,
                 "pressure_points": outcome.pressure_points,
                 "capped_hands": outcome.capped_hands, "decisions": len(result.moves),
                 "seconds": round(result.seconds, 4)},
    )


@asynccontextmanager
async def referee_for(
    config: TournamentConfig, address: tuple[str, int], isolation: Isolation,
    tls: TlsFiles | None = None,
) -> AsyncIterator[Referee | None]:
    """An embedded referee for the bots with processes; None when every bot plays in process
    (no port is opened, and no gRPC runs at all). ``tls``: remote bots dial over TLS."""
    if all(bot.kind == "python" for bot in config.bots):
        yield None
        return
    sandboxed = any(isolation.isolated(name) for name in config.bot_names)
    async with open_referee(*address, unix_socket=sandboxed, tls=tls) as referee:
        yield referee
