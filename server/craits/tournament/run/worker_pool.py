"""Worker processes, seen from the run process: every core playing tables, one writer.

With ``workers`` > 1 the run process plays nothing itself. It starts that many worker processes
(``worker``), each with its own referee and bot processes (or in-process bots), and a
``WorkerTables`` stands for each: the runner claims a job for a worker's table as it would for a
table of its own, ``play`` sends the job there and waits for the finished game, and the runner
records it. The store has one writer, and a job is claimed and recorded exactly as with one
process, so a kill -9 of any process keeps the guarantees of ``runner``: the run process's death
ends every worker (its socket closes), a worker's death stops the run (``WorkerError``), and
either way the games in flight are left ``running``, to be played again on resume. A worker
told to (``WorkerSetup.live``) also sends each game's public events, already redacted, while it
plays it; they go to ``on_public``.

Workers start in a session of their own, so a Ctrl-C at the terminal reaches only the run
process, which then ends them: the command reports the interruption, not a worker's death.
"""

from __future__ import annotations

import dataclasses
import socket
import subprocess
import sys
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from multiprocessing.connection import Connection
from typing import Final, Protocol

import trio

from craits.engine import Event
from craits.tournament.plan.config import TournamentConfig, config_from_dict
from craits.tournament.plan.schedule import Job, phase_of
from craits.tournament.store.game_records import FinishedGame

from .botpool import BotPoolError
from .worker_process import ERRORS, WorkerSetup, receive

STOP_WAIT_S: Final = 10.0
"""How long a worker may take to stop its bots after the run process lets it go."""


PublicEvents = Callable[[Job, Sequence[Event], bool], None]
"""Told a game's public events as a worker plays it: the job, the events since the last, and
whether the game is over (``GameWatch.public``)."""


class WorkerError(BotPoolError):
    """A worker process ended while the tournament was being played (its games are kept for a
    resume, like those of a bot that kept dying)."""


class WorkerTables:
    """The tables of one worker process."""

    def __init__(self, number: int, setup: WorkerSetup) -> None:
        self.number = number
        self.busy: Counter[str] = Counter()
        ours, theirs = socket.socketpair()
        self._process = subprocess.Popen(
            [sys.executable, "-m", "craits.tournament.run.worker_process", str(theirs.fileno())],
            pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, start_new_session=True,
        )
        theirs.close()
        self._conn = Connection(ours.detach())
        self._conn.send(dataclasses.replace(setup, number=number))
        self._waiting: dict[int, trio.MemorySendChannel[FinishedGame]] = {}
        self._jobs: dict[int, Job] = {}
        self.on_public: PublicEvents | None = None
        """Told the public events of the games played here (only sent when the worker was
        set up ``live``)."""
        self.gate: PhaseGate | None = None
        """Shared by every worker of the run (``open_workers``)."""
        self._phased = trio.Event()

    @property
    def pid(self) -> int:
        """The worker process's id."""
        return self._process.pid

    async def ready(self) -> None:
        """Wait until the worker's bots are all in (or raise what kept them out)."""
        self._check(await self._receive(), "ready")

    async def play(self, job: Job) -> FinishedGame:
        """Send the job to the worker; its finished game, once ``listen`` has it."""
        if self.gate is not None:
            await self.gate.enter(job)
        send, game = trio.open_memory_channel[FinishedGame](1)
        self._waiting[job.game_index] = send
        self._jobs[job.game_index] = job
        try:
            try:
                self._conn.send(("job", job))
            except OSError:  # it died before ``listen`` saw it: say so as ``listen`` does
                raise await self._gone() from None
            return await game.receive()
        finally:
            del self._waiting[job.game_index]
            del self._jobs[job.game_index]

    async def end_phase(self, phase: int) -> None:
        """Have the worker end its sandboxed processes of other seatings, and wait until it
        has (``worker_process._enter_phase``)."""
        self._phased = trio.Event()
        try:
            self._conn.send(("phase", phase))
        except OSError:
            raise await self._gone() from None
        await self._phased.wait()

    async def listen(self) -> None:
        """Hand each finished game to its table; raise if the worker fails or goes."""
        while True:
            received = await self._receive()
            if received[0] == "phased":
                self._phased.set()
                continue
            if received[0] == "live":
                self._public(received)
                continue
            message = self._check(received, "done")
            game = message[1]
            assert isinstance(game, FinishedGame), "a worker sent something else as a game"
            table = self._waiting.get(game.game_index)
            if table is not None:  # else its table was cancelled: the run is stopping
                table.send_nowait(game)

    def _public(self, message: tuple[object, ...]) -> None:
        """A game's public events, for ``on_public`` (a game whose table was cancelled is
        dropped)."""
        _, index, events, over = message
        job = self._jobs.get(index) if isinstance(index, int) else None
        if job is not None and self.on_public is not None:
            assert isinstance(events, list), "a worker sent something else as events"
            self.on_public(job, events, bool(over))

    async def _receive(self) -> tuple[object, ...]:
        """The worker's next message; ``WorkerError`` saying how it ended if it has."""
        message = await receive(self._conn)
        if message is not None:
            return tuple(message)
        raise await self._gone()

    async def _gone(self) -> WorkerError:
        """The error for a worker whose connection ended, saying how its process ended.

        ``listen`` and a table sending a job may each be first to find a worker dead: both
        raise this same error, so that the run stops with one ``WorkerError`` (a table's
        ``BrokenPipeError`` beside it made the run end in an exception group instead).
        """
        try:
            code = await trio.to_thread.run_sync(self._process.wait, STOP_WAIT_S)
            how = f"exited with status {code}"
        except subprocess.TimeoutExpired:
            how = "closed its connection"
        return WorkerError(f"worker process {self.number} {how}; the games it was playing "
                           "were kept for a resume")

    def _check(self, message: tuple[object, ...], expected: str) -> tuple[object, ...]:
        if message[0] == "error":
            raise ERRORS[str(message[1])](str(message[2]))
        if message[0] != expected:
            raise WorkerError(f"worker process {self.number} said {message[0]!r}, "
                              f"not {expected!r}")
        return message

    async def close(self) -> None:
        """Let the worker go (it stops its bots and exits), and make sure it has."""
        self._conn.close()
        try:
            await trio.to_thread.run_sync(self._process.wait, STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            self._process.kill()
            await trio.to_thread.run_sync(self._process.wait)


class Phased(Protocol):
    """A place that plays tables for the run process: a worker process or a Ray actor."""

    async def end_phase(self, phase: int) -> None:
        """End its sandboxed processes of other seatings than ``phase``; return once done."""
        ...


class PhaseGate:
    """Seating-major order across workers (``schedule.seating_major``): before the first job
    of a new seating goes to any worker (process or Ray actor), every worker ends its sandboxed
    processes of the seating before, so that no process of the new seating runs beside one that
    saw an earlier seating of its deal (a worker that got no job of the new seating would
    otherwise keep them)."""

    def __init__(self, config: TournamentConfig, workers: Sequence[Phased]) -> None:
        self._config = config
        self._workers = workers
        self._phase: int | None = None
        self._lock = trio.Lock()

    async def enter(self, job: Job) -> None:
        """Wait until every worker plays ``job``'s seating."""
        phase = phase_of(self._config, job)
        if phase is None:
            return
        async with self._lock:
            if self._phase == phase:
                return
            async with trio.open_nursery() as nursery:
                for worker in self._workers:
                    nursery.start_soon(worker.end_phase, phase)
            self._phase = phase


@asynccontextmanager
async def open_workers(setup: WorkerSetup, count: int) -> AsyncIterator[list[WorkerTables]]:
    """``count`` worker processes with their bots in, listened to while the body runs."""
    workers: list[WorkerTables] = []
    try:
        workers.extend(WorkerTables(number, setup) for number in range(1, count + 1))
        gate = PhaseGate(config_from_dict(setup.config), workers)
        for worker in workers:
            worker.gate = gate
        for worker in workers:
            await worker.ready()
        async with trio.open_nursery() as nursery:
            for worker in workers:
                nursery.start_soon(worker.listen)
            yield workers
            nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            for worker in workers:
                await worker.close()
