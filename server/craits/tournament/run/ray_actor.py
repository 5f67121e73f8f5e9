"""A worker on a Ray node: the tables of one worker slot, for a run process on another machine.

``TableWorker`` is what a worker process is (``worker``), as a Ray actor: it opens the same
tables (``worker.open_tables``: its own referee, if some bot has a process, and its own bot
pool) and plays every job it is given, returning the finished game; it never sees the store.
The tables live in a trio run on a thread of the actor's own (as gRPC's guest when a bot has a
process, as in a worker process), and each ``play`` call, on one of Ray's threads for the
actor, hands its job to that run and waits for the game. Ray calls this module's methods; the
run process's side is ``raytables``.

The actor is restarted by Ray when its process or node dies (``raytables`` asks for that), and
a restarted one opens its tables anew from the same ``WorkerSetup``: nothing here outlives a
game that is not in the store, as nothing in a worker process does.
"""

from __future__ import annotations

import dataclasses
import tempfile
import threading
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import trio

from craits import private
from craits.referee import bridge
from craits.tournament.plan.schedule import Job
from craits.tournament.store.game_records import FinishedGame

from .local_tables import LocalTables
from .worker_process import WorkerSetup, needs_referee, open_tables, reported

STOP_WAIT_S: Final = 10.0
"""How long the actor waits for its bots to stop when it is let go."""


@dataclass(frozen=True, slots=True)
class Failure:
    """Why a worker could not play: an error of ``worker.ERRORS`` by its class's name (else
    ``WorkerError``), raised again by the run process in its own name. Returned as a value, not
    raised, so that Ray neither retries it nor wraps it in its own traceback."""

    kind: str
    message: str


def on_this_node(setup: WorkerSetup, shipped: bool) -> WorkerSetup:
    """The setup as this node sees it: with the bot directory ``shipped`` (Ray's
    ``runtime_env`` working_dir), launched bots run in the copy Ray unpacked here, which is the
    actor's current directory; the logs go to the run's log directory when this node sees it
    (the same machine, or a shared filesystem), else to this node's temporary directory."""
    workdir = Path.cwd() if shipped else setup.workdir
    log_dir = setup.log_dir
    if not log_dir.is_dir():
        log_dir = Path(tempfile.gettempdir()) / "craits-logs" / setup.tournament_id
        private.make_dirs(log_dir)
    return dataclasses.replace(setup, workdir=workdir, log_dir=log_dir)


class TableWorker:
    """One worker slot's tables on a Ray node (made a Ray actor by ``raytables``)."""

    def __init__(self, setup: WorkerSetup, shipped: bool) -> None:
        self._setup = on_this_node(setup, shipped)
        self._opened = threading.Event()
        self._failure: Failure | None = None
        self._tables: LocalTables | None = None
        self._token: trio.lowlevel.TrioToken | None = None
        self._stop: trio.Event | None = None
        self._thread = threading.Thread(target=self._run, name="craits-tables", daemon=True)
        self._thread.start()

    def ready(self) -> Failure | None:
        """Wait until the bots are all in; what kept them out, if something did."""
        self._opened.wait()
        return self._failure

    def play(self, job: Job) -> FinishedGame | Failure:
        """Play the job's game at one of this worker's tables (many calls run at once)."""
        failure = self.ready()
        if failure is not None:
            return failure
        assert self._tables is not None and self._token is not None
        try:
            return trio.from_thread.run(self._tables.play, job, trio_token=self._token)
        except Exception as exc:
            return _failure_of(exc)

    def enter_phase(self, phase: int) -> Failure | None:
        """End this worker's sandboxed processes of other seatings than ``phase``
        (``LocalTables.enter_phase``, for the run process's ``PhaseGate``)."""
        failure = self.ready()
        if failure is not None:
            return failure
        assert self._tables is not None and self._token is not None
        try:
            trio.from_thread.run(self._tables.enter_phase, phase, trio_token=self._token)
        except Exception as exc:
            return _failure_of(exc)
        return None

    def stop(self) -> None:
        """End the tables and stop the bots (the run process is done with this worker)."""
        if self._token is not None and self._stop is not None:
            with suppress(trio.RunFinishedError):  # it ended by itself
                trio.from_thread.run_sync(self._stop.set, trio_token=self._token)
        self._thread.join(STOP_WAIT_S)

    def _run(self) -> None:
        """The worker's trio run, on this actor's own thread, until ``stop``."""
        try:
            if needs_referee(self._setup.config):
                bridge.run(_hold_tables, self._setup, self._opened_with)
            else:
                trio.run(_hold_tables, self._setup, self._opened_with)
        except BaseException as raised:
            self._failure = _failure_of(raised)
        finally:
            self._tables = None
            self._opened.set()

    def _opened_with(self, tables: LocalTables, stop: trio.Event) -> None:
        """The tables are open (called in their trio run)."""
        self._tables, self._stop = tables, stop
        self._token = trio.lowlevel.current_trio_token()
        self._opened.set()


async def _hold_tables(setup: WorkerSetup, opened: Callable[[LocalTables, trio.Event], None]
                       ) -> None:
    """Open the tables, say so, and hold them open until the stop event is set.

    A function, not a method: Ray makes an actor with any ``async def`` method an asyncio
    actor, whose plain methods run one at a time on its event loop, and ``play`` must run
    ``concurrency`` at once, on Ray's threads."""
    async with open_tables(setup) as tables:
        stop = trio.Event()
        opened(tables, stop)
        await stop.wait()


def _failure_of(raised: BaseException) -> Failure:
    error = reported(raised)
    if error is not None:
        return Failure(type(error).__name__, str(error))
    return Failure("WorkerError", f"a Ray worker failed: {type(raised).__name__}: {raised}")
