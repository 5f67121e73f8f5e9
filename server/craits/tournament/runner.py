"""Playing a stored tournament: many tables at once under trio, every result recorded at once.

``run_tournament`` starts an embedded referee, brings in the bots (``BotPool``), and runs
``concurrency`` table workers. Each worker claims the next pending job that does not put any bot
over ``max_tables_per_bot``, plays it through the referee, and records the finished game (result
and its record) in one transaction. A killed run leaves at worst some jobs ``running`` with nothing
recorded; the next run resets them and plays them again from their seeds, so no game is lost or
counted twice. A game's id is fixed when the tournament is created (an opaque keyed name, see
``schedule``), so a deterministic bot plays it the same way in a resumed run as in the first.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import trio

from craits.engine import Rules
from craits.exception_groups import sole_exception
from craits.referee.bridge import DEFAULT_HOST
from craits.referee.game import GameResult as RefereeResult
from craits.referee.game import GameSpec, play_game
from craits.referee.listener import TlsFiles
from craits.referee.policy import TimeControl
from craits.referee.server import open_referee

from .botpool import BotPool, Isolation, isolation_problem
from .config import TournamentConfig
from .elo import OnlineElo
from .lease import lease
from .records import FinishedGame, PlayLog
from .results import GameResult
from .schedule import Job, stored_game_id
from .sprt import SprtResult, match_verdict
from .store import Store, TournamentInfo

REMOTE_CONNECT_S = 600.0


class RunError(Exception):
    """The stored tournament cannot be played as it stands (nothing was changed)."""


@dataclass(slots=True)
class Progress:
    """A live snapshot for progress displays."""

    tournament_id: str
    total: int
    done: int
    started_at: float
    elo: dict[str, float] = field(default_factory=dict)
    last: str = ""
    """A one-line description of the last finished game."""
    sprt: SprtResult | None = None
    """In ``match`` mode: the sequential test after the last complete deal set."""
    played: int = 0
    """Games finished in this run (``done`` also counts earlier runs)."""

    @property
    def rate(self) -> float:
        """Games per second in this run."""
        return self.played / max(1e-9, time.monotonic() - self.started_at)

    @property
    def eta_s(self) -> float:
        """Estimated seconds to the end."""
        return (self.total - self.done) / self.rate if self.played else float("nan")


ProgressHook = Callable[[Progress], None]


class _Run:
    def __init__(self, store: Store, tournament_id: str, pool: BotPool, hook: ProgressHook) -> None:
        self.store = store
        self.tid = tournament_id
        self.config = store.config(tournament_id)
        self.pool = pool
        self.hook = hook
        self.busy: Counter[str] = Counter()
        self.freed = trio.Event()
        self.claiming = trio.Lock()
        info = store.tournament(tournament_id)
        self.elo = OnlineElo(self.config.bot_names)
        for result in store.results(tournament_id):
            self.elo.add(result)
        self.progress = Progress(
            tournament_id, info.total, info.jobs.get("done", 0), time.monotonic(),
            dict(self.elo.ratings),
        )

    async def worker(self) -> None:
        while True:
            freed = self.freed  # taken first: a table that ends while we claim must wake us
            job = await self._claim()
            if job is None:
                if not await trio.to_thread.run_sync(self._pending):
                    return
                await freed.wait()
                continue
            try:
                await self.play(job)
            finally:
                self.busy.subtract(job.seats)
                self.freed.set()
                self.freed = trio.Event()

    async def _claim(self) -> Job | None:
        """Claim the next job whose bots are all under their table limit, and count it busy.

        The store is used off the trio thread, here and for every call while tables play: a
        thread recording a finished game holds the store's lock for its whole transaction,
        and waiting for it on the trio thread would freeze every table, with the time charged
        to the bots. Claims go one at a time, so the snapshot of busy bots a claim is judged on
        holds until the claim is counted.
        """
        async with self.claiming:
            busy, limit = Counter(self.busy), self.config.max_tables_per_bot
            job = await trio.to_thread.run_sync(
                self.store.claim_next, self.tid, lambda seats: all(busy[b] < limit for b in seats)
            )
            if job is not None:
                self.busy.update(job.seats)
            return job

    def _pending(self) -> int:
        """Jobs still to claim (run in a thread: see ``_claim``)."""
        return self.store.tournament(self.tid).jobs.get("pending", 0)

    async def play(self, job: Job) -> None:
        seats = [await self.pool.seat(name, self._slot(job, name)) for name in job.seats]
        spec = GameSpec(
            stored_game_id(job, self.config.seed), Rules.from_json(job.rules_json), job.seed,
            job.time, job.failure, self._seat_times(job),
        )
        started = time.time()
        result = await play_game(spec, seats)
        finished = _finished(self.tid, job, result, started)
        if await trio.to_thread.run_sync(self.store.record_game, finished):
            self._report(job, result)
            if self.config.sprt is not None:
                await trio.to_thread.run_sync(self._sequential_test)

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

    def _sequential_test(self) -> None:
        """A match or a gauntlet with [sprt]: stop scheduling deal sets once the SPRT accepts a
        hypothesis (run in a thread: see ``_claim``; it only sets fields that the display
        reads). Two tables ending together run two of these, which may finish in either order:
        the display keeps the test over the most deal sets."""
        result = match_verdict(self.config, self.store.results(self.tid))
        shown = self.progress.sprt
        if shown is None or result.deal_sets >= shown.deal_sets:
            self.progress.sprt = result
        if result.decision != "continue":
            skipped = self.store.skip_pending(self.tid)
            self.progress.total -= skipped

    def _report(self, job: Job, result: RefereeResult) -> None:
        self.elo.add(GameResult(
            job.game_index, job.meeting_index, job.deal_set, job.rotation, job.seats,
            result.totals, result.places, result.strikes, result.forfeited,
        ))
        p = self.progress
        p.done += 1
        p.played += 1
        p.elo = dict(self.elo.ratings)
        winner = job.seats[result.places.index(1)]
        p.last = f"game {job.game_index}: {winner} won ({', '.join(job.seats)})"
        self.hook(p)


def _finished(tid: str, job: Job, result: RefereeResult, started: float) -> FinishedGame:
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


async def run_tournament(
    store: Store, tournament_id: str, log_dir: Path, hook: ProgressHook = lambda p: None,
    host: str = DEFAULT_HOST, port: int = 0, hidden: tuple[Path, ...] = (),
    tls: TlsFiles | None = None,
) -> None:
    """Play every pending game of a stored tournament (resuming whatever a dead run left).

    Launched bots run in the directory the tournament was started from (``bot_directory``);
    isolated ones in sandboxes that mask ``hidden`` (the store's files) and ``log_dir``.
    The run holds the tournament's ``lease``: a second runner gets ``LeaseError`` before it
    changes anything. The tournament ends ``finished``, or ``paused`` however else the run stops
    (Ctrl-C, a bot that cannot start, an error): never ``running`` with no runner.
    ``tls``: remote bots dial over TLS.
    """
    config = store.config(tournament_id)
    workdir = bot_directory(store.tournament(tournament_id), config)
    problem = isolation_problem(config, workdir)
    if problem is not None:
        raise RunError(problem)
    isolation = Isolation(config.isolated, (*hidden, log_dir.resolve().parent))
    with lease(log_dir, tournament_id):
        store.reset_running(tournament_id)
        store.set_status(tournament_id, "running")
        finished = False
        try:
            await _run(store, tournament_id, log_dir, hook, (host, port), workdir, isolation,
                       tls)
            finished = True
        except BaseExceptionGroup as group:
            raise sole_exception(group) from None  # so callers can catch BotPoolError, ...
        finally:
            store.set_status(tournament_id, "finished" if finished else "paused")


def bot_directory(info: TournamentInfo, config: TournamentConfig) -> Path | None:
    """Where the launched bots run: the directory the tournament was started from.

    A command bot may name files relative to that directory, so a resume from anywhere else
    would start the wrong program, or none, and spoil the games it plays; when the directory is
    gone, such a tournament is refused rather than spoiled. Bundled and remote bots do not care
    where they run, and a tournament stored without a directory runs in the current one.
    """
    workdir = info.workdir
    if workdir is None or workdir.is_dir():
        return workdir
    if any(bot.kind == "command" for bot in config.bots):
        raise RunError(f"tournament {info.id} was started in {workdir}, which no longer exists: "
                       "its bot commands run there; restore that directory to resume it")
    return None


async def _run(
    store: Store, tournament_id: str, log_dir: Path, hook: ProgressHook,
    address: tuple[str, int], workdir: Path | None, isolation: Isolation,
    tls: TlsFiles | None = None,
) -> None:
    sandboxed = any(isolation.isolated(name) for name in store.config(tournament_id).bot_names)
    async with (
        open_referee(*address, unix_socket=sandboxed, tls=tls) as referee,
        trio.open_nursery() as nursery,
    ):
        pool = BotPool(referee, nursery, log_dir, workdir=workdir, isolation=isolation)
        try:
            run = _Run(store, tournament_id, pool, hook)
            await pool.start(run.config.bots, REMOTE_CONNECT_S)
            hook(run.progress)
            async with trio.open_nursery() as tables:
                for _ in range(run.config.concurrency):
                    tables.start_soon(run.worker)
        finally:
            with trio.CancelScope(shield=True):
                await pool.stop()
            nursery.cancel_scope.cancel()
