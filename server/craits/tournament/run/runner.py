"""Playing a stored tournament: many tables at once under trio, every result recorded at once.

``run_tournament`` runs ``concurrency`` tables in each place that plays them: this process (an
embedded referee, if any bot has a process, and the bots: ``BotPool``, ``LocalTables``), or with
``workers`` > 1 each worker process (``worker_pool``), or each worker actor on a Ray cluster
(``ray_pool``). Each table claims the next pending job that does not put any bot over
``max_tables_per_bot`` there, has it played, and records the finished game (result and its
record) in one transaction: this process is the store's one writer. A killed run leaves at
worst some jobs ``running`` with nothing recorded; the next run resets them and plays them
again from their seeds, so no game is lost or counted twice. A game's id is fixed
when the tournament is created (an opaque keyed name, see ``schedule``), so a deterministic bot
plays it the same way in a resumed run as in the first, in any process.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import trio

from craits.engine import Event, Game
from craits.exception_groups import sole_exception
from craits.ratings.elo import OnlineElo
from craits.ratings.results import ScoredGame
from craits.ratings.sprt import SprtResult
from craits.referee.bridge import DEFAULT_HOST
from craits.referee.listener import TlsFiles
from craits.tournament.plan.config import TournamentConfig
from craits.tournament.plan.schedule import Job
from craits.tournament.plan.verdict import match_verdict
from craits.tournament.store.database import Store, TournamentInfo
from craits.tournament.store.game_records import FinishedGame

from .botpool import BotPool, Isolation, isolation_problem
from .lease import lease
from .local_tables import LocalTables, referee_for
from .ray_pool import RayCluster, RayError, disconnect, join, open_ray_workers
from .worker_pool import open_workers
from .worker_process import WorkerSetup

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


class GameWatch(Protocol):
    """Someone following a run's games while they are played (``craits tournament run --web``'s
    live pages): the runner knows nothing of who, only when a game starts, each move (through
    the observer ``start`` returns: ``play_game``'s ``watch``) and how it ended. A game played
    in a worker process is told through ``public`` instead: its public events, redacted in the
    worker, a few at a time (``worker_process.LiveRelay``). Games played by Ray actors are not
    watched."""

    def start(self, job: Job) -> Callable[[Game], None]:
        """The job's game begins here: its observer, told the game after each move."""
        ...

    def public(self, job: Job, events: Sequence[Event], over: bool) -> None:
        """The public events of the job's game, played in a worker process, since the last
        call (already redacted there); ``over``: the game has ended."""
        ...

    def end(self, job: Job, recorded: bool) -> None:
        """The job's game is over and recorded (``recorded``), or stopped unrecorded; called
        for every claimed job, wherever it was played."""
        ...


class Tables(Protocol):
    """Where claimed games are played: in this process (``LocalTables``) or in a worker
    process (``worker_pool.WorkerTables``). ``busy`` counts each bot's tables there now."""

    busy: Counter[str]

    async def play(self, job: Job) -> FinishedGame:
        """Play the job's game and return what the store keeps of it."""
        ...


@dataclass(frozen=True, slots=True)
class RunOptions:
    """How this run plays a stored tournament: the operator's choices, none of them stored
    with the tournament (a resume may choose again). One value, so that what ``run_tournament``
    is asked reaches each place it plays without being threaded through as loose arguments."""

    log_dir: Path
    """Where the bots' logs go, and the run's ``lease``."""
    host: str = DEFAULT_HOST
    port: int = 0
    """The embedded referee's address (remote bots dial it)."""
    hidden: tuple[Path, ...] = ()
    """Files no sandboxed bot may see (the store's)."""
    tls: TlsFiles | None = None
    """Remote bots dial over TLS."""
    workers: int | None = 1
    """Worker processes (or actors on ``ray``); None: as many as pay off."""
    ray: RayCluster | None = None
    """Play on this Ray cluster's actors instead of local processes."""
    watch: GameWatch | None = None
    """Told of each game as it is played in this process (``GameWatch``)."""

    @property
    def address(self) -> tuple[str, int]:
        return (self.host, self.port)


@dataclass(frozen=True, slots=True)
class RunSettings:
    """Everything a run is set up with, read once when it starts and passed down whole: the
    tournament as stored, where its launched bots run, how they are isolated, and the options.
    Nothing below ``run_tournament`` reads the configuration back from the store."""

    tournament_id: str
    config: TournamentConfig
    workdir: Path | None
    """The directory the launched bots run in (``bot_directory``)."""
    isolation: Isolation
    options: RunOptions

    def worker_setup(self, host: str, live: bool = False) -> WorkerSetup:
        """What each worker process or actor is told before its first job (``live``: to send
        its games' public events as it plays them)."""
        return WorkerSetup(self.tournament_id, self.config.to_dict(), self.options.log_dir,
                           self.workdir, self.isolation.hidden, host, live=live)


def run_settings(store: Store, tournament_id: str, options: RunOptions) -> RunSettings:
    """Read the stored tournament once and check that this run can play it: ``RunError`` (with
    nothing changed) if it cannot."""
    config = store.config(tournament_id)
    workdir = bot_directory(store.tournament(tournament_id), config)
    problem = isolation_problem(config, workdir)
    if problem is None and options.ray is not None:
        problem = ray_problem(config, options.tls, options.address)
    if problem is not None:
        raise RunError(problem)
    isolation = Isolation(config.isolated, (*options.hidden, options.log_dir.resolve().parent))
    return RunSettings(tournament_id, config, workdir, isolation, options)


class _Run:
    """One run's live state: claims, the online Elo and the progress shown. Made inside the
    lease, after jobs a dead run left are reset, so the job counts it reads are this run's."""

    def __init__(self, store: Store, settings: RunSettings, hook: ProgressHook) -> None:
        self.store = store
        self.settings = settings
        self.tid = settings.tournament_id
        self.config = settings.config
        self.hook = hook
        self.freed = trio.Event()
        self.claiming = trio.Lock()
        # header and job counts as the run starts: ``pending`` decides how many workers
        self.info = store.tournament(self.tid)
        self.elo = OnlineElo(self.config.bot_names)
        for result in store.results(self.tid):
            self.elo.add(result)
        self.progress = Progress(
            self.tid, self.info.total, self.info.jobs.get("done", 0), time.monotonic(),
            dict(self.elo.ratings),
        )

    async def table(self, tables: Tables) -> None:
        """One table of ``tables``: claim a game that fits, play it there, record it; repeat."""
        while True:
            freed = self.freed  # taken first: a table that ends while we claim must wake us
            job = await self._claim(tables.busy)
            if job is None:
                if not await trio.to_thread.run_sync(self._pending):
                    return
                await freed.wait()
                continue
            try:
                await self.play(job, tables)
            finally:
                tables.busy.subtract(job.seats)
                self.freed.set()
                self.freed = trio.Event()

    async def _claim(self, busy: Counter[str]) -> Job | None:
        """Claim the next job whose bots are all under their table limit where it will be
        played (``busy``), and count it busy there.

        The store is used off the trio thread, here and for every call while tables play: a
        thread recording a finished game holds the store's lock for its whole transaction,
        and waiting for it on the trio thread would freeze every table, with the time charged
        to the bots. Claims go one at a time, so the snapshot of busy bots a claim is judged on
        holds until the claim is counted.
        """
        async with self.claiming:
            snapshot, limit = Counter(busy), self.config.max_tables_per_bot
            job = await trio.to_thread.run_sync(
                self.store.claim_next, self.tid,
                lambda seats: all(snapshot[b] < limit for b in seats),
            )
            if job is not None:
                busy.update(job.seats)
            return job

    def _pending(self) -> int:
        """Jobs still to claim (run in a thread: see ``_claim``)."""
        return self.store.tournament(self.tid).jobs.get("pending", 0)

    async def play(self, job: Job, tables: Tables) -> None:
        watch, recorded = self.settings.options.watch, False
        try:
            finished = await tables.play(job)
            new = await trio.to_thread.run_sync(self.store.record_game, finished)
            recorded = True
        finally:  # the game's page exists once it is recorded: then watchers are told
            if watch is not None:
                watch.end(job, recorded)
        if new:
            self._report(job, finished)
            if self.config.sprt is not None:
                await trio.to_thread.run_sync(self._sequential_test)

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

    def _report(self, job: Job, game: FinishedGame) -> None:
        self.elo.add(ScoredGame(
            job.game_index, job.meeting_index, job.deal_set, job.rotation, job.seats,
            game.totals, game.places, game.strikes, game.forfeited,
        ))
        p = self.progress
        p.done += 1
        p.played += 1
        p.elo = dict(self.elo.ratings)
        winner = job.seats[game.places.index(1)]
        p.last = f"game {job.game_index}: {winner} won ({', '.join(job.seats)})"
        self.hook(p)


async def run_tournament(
    store: Store, tournament_id: str, options: RunOptions, hook: ProgressHook = lambda p: None,
) -> None:
    """Play every pending game of a stored tournament (resuming whatever a dead run left).

    ``options.workers`` > 1: that many worker processes play the tables, each with its own
    bots, and this process only claims and records (``worker_pool``); None: as many as pay off
    (see ``worker_count``, also for when fewer run). ``options.ray``: the workers are actors on
    that Ray cluster instead (``ray_pool``), by default one per CPU of the cluster.

    Launched bots run in the directory the tournament was started from (``bot_directory``);
    isolated ones in sandboxes that mask ``options.hidden`` (the store's files) and the logs.
    The run holds the tournament's ``lease``: a second runner gets ``LeaseError`` before it
    changes anything. The tournament ends ``finished``, or ``paused`` however else the run stops
    (Ctrl-C, a bot that cannot start, an error): never ``running`` with no runner.
    """
    settings = run_settings(store, tournament_id, options)
    with lease(options.log_dir, tournament_id):
        store.reset_running(tournament_id)
        store.set_status(tournament_id, "running")
        finished = False
        try:
            if options.ray is not None:
                await _run_on_ray(store, settings, hook, options.ray)
            else:
                await _run(store, settings, hook)
            finished = True
        except BaseExceptionGroup as group:
            raise sole_exception(group) from None  # so callers can catch BotPoolError, ...
        finally:
            store.set_status(tournament_id, "finished" if finished else "paused")


def worker_count(
    config: TournamentConfig, asked: int | None, info: TournamentInfo, address: tuple[str, int]
) -> int:
    """How many worker processes to start for ``asked``: one (this process plays) when a bot
    is remote (it connects to one referee, at one address) or the referee's address was chosen
    (only one referee can listen on a fixed port, and a host is chosen for remote bots to reach
    it); never more than there are games left to play.

    ``asked`` None: one per core, but no more than one per two rounds of ``concurrency`` games
    left: a worker costs an interpreter's start and bot processes of its own, which a small
    tournament never earns back.
    """
    if address != (DEFAULT_HOST, 0) or any(bot.kind == "remote" for bot in config.bots):
        return 1
    pending = info.jobs.get("pending", 0)
    if asked is None:
        asked = min(os.cpu_count() or 1, pending // (2 * config.concurrency))
    return max(1, min(asked, pending))


def ray_problem(
    config: TournamentConfig, tls: TlsFiles | None, address: tuple[str, int]
) -> str | None:
    """Why the tournament cannot be played on a Ray cluster, if it cannot: its remote bots dial
    one referee at one address, and each worker on the cluster has a referee of its own."""
    if any(bot.kind == "remote" for bot in config.bots) or tls or address != (DEFAULT_HOST, 0):
        return ("a tournament with remote bots (or --host, --port or TLS, which are for them) "
                "plays in one process, not on a Ray cluster: leave out --ray")
    return None


def ray_worker_count(asked: int | None, cpus: int, pending: int) -> int:
    """How many worker actors to start: ``asked``, else one per CPU of the cluster, never
    more than there are games left; ``RayError`` if the cluster cannot place them all (each
    takes a CPU, and one that finds none would wait for one forever)."""
    if asked is not None and asked > cpus:
        raise RayError(f"--workers {asked} needs {asked} CPUs of the Ray cluster, which has "
                       f"{cpus}: ask for at most {cpus}, or add nodes")
    return max(1, min(asked or cpus, pending))


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


async def _run(store: Store, settings: RunSettings, hook: ProgressHook) -> None:
    """Play every game here, or in worker processes (as many as ``worker_count`` says)."""
    run = _Run(store, settings, hook)
    options = settings.options
    workers = 1 if options.tls else worker_count(
        settings.config, options.workers, run.info, options.address)
    if workers > 1:
        watch = options.watch
        setup = settings.worker_setup(options.host, live=watch is not None)
        async with open_workers(setup, workers) as remote:
            for place in remote:
                place.on_public = None if watch is None else watch.public
            hook(run.progress)
            await _play_all(run, remote)
        return
    async with (
        referee_for(settings.config, options.address, settings.isolation, options.tls)
        as referee,
        trio.open_nursery() as nursery,
    ):
        pool = BotPool(referee, nursery, options.log_dir, workdir=settings.workdir,
                       isolation=settings.isolation)
        try:
            await pool.start(settings.config.bots, REMOTE_CONNECT_S)
            hook(run.progress)
            tables = LocalTables(pool, settings.config, settings.tournament_id)
            if options.watch is not None:
                tables.watch = options.watch.start
            await _play_all(run, [tables])
        finally:
            with trio.CancelScope(shield=True):
                await pool.stop()
            nursery.cancel_scope.cancel()


async def _run_on_ray(
    store: Store, settings: RunSettings, hook: ProgressHook, cluster: RayCluster
) -> None:
    """Join the cluster, play every game with worker actors on it, and leave it."""
    cpus = await join(cluster, settings.workdir, settings.isolation.hidden)
    try:
        run = _Run(store, settings, hook)  # after joining: the run's rate counts from here
        count = ray_worker_count(settings.options.workers, cpus, run.info.jobs["pending"])
        async with open_ray_workers(settings.worker_setup(DEFAULT_HOST), count, cluster,
                                    settings.config.concurrency) as places:
            hook(run.progress)
            await _play_all(run, places)
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(disconnect)


async def _play_all(run: _Run, places: Sequence[Tables]) -> None:
    """``concurrency`` tables in each place that plays them, until no job is left."""
    async with trio.open_nursery() as nursery:
        for tables in places:
            for _ in range(run.config.concurrency):
                nursery.start_soon(run.table, tables)
