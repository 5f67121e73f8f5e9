"""Worker slots on a Ray cluster, seen from the run process: many machines, one writer.

``craits tournament run FILE --ray ADDRESS`` plays as ``--workers N`` does (``workers``), with
each worker a Ray actor (``rayworker.TableWorker``) placed by Ray on some node of the cluster,
one CPU each, spread over the nodes. The run process connects to the cluster, claims each job
from its store for a worker's table, hands it to that worker's actor, and records the finished
game it gets back: it stays the store's one writer, and nothing else changes in ``runner``.

The bot directory (where the tournament was started) reaches the nodes one of two ways:
shipped by Ray (``runtime_env`` ``working_dir``: uploaded once, unpacked on every node, where
the actors run in it), or, with ``RayCluster.shared``, found at the same path on every node (a
shared filesystem), and nothing is shipped.

Failures: the actors are made with unlimited restarts and task retries, so when an actor's
process or its whole node dies, Ray starts the actor again on a node that has room and sends it
the calls that were in flight, which replay their jobs from their seeds: each game is recorded
once, since only the call that returns is recorded. When the run process dies, Ray ends its
actors (they belong to it), their bots lose their referee and end, and the games in flight stay
``running`` in the store for a resume, as with worker processes.
"""

from __future__ import annotations

import dataclasses
import importlib
import logging
import signal
import socket
import threading
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import trio

from craits.tournament.plan.config import config_from_dict
from craits.tournament.plan.schedule import Job
from craits.tournament.store.game_records import FinishedGame

from .ray_actor import Failure, TableWorker
from .worker_pool import PhaseGate, WorkerError
from .worker_process import ERRORS, WorkerSetup

CONNECT_S: Final = 10.0
"""How long to wait for the head to accept a connection before saying it cannot be reached."""
STOP_WAIT_S: Final = 15.0
"""How long the run process waits for a worker to stop its bots before Ray kills it."""


class RayError(WorkerError):
    """The Ray cluster could not be used (not installed, not reachable, too small)."""


@dataclass(frozen=True, slots=True)
class RayCluster:
    """Where to play: the cluster's address (``HOST:PORT`` of its head, or ``auto``)."""

    address: str
    shared: bool = False
    """The bot directory is at the same path on every node: nothing is shipped."""


def ray_module() -> Any:
    """The ``ray`` module, or ``RayError`` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise RayError("--ray needs Ray, which is not installed: pip install "
                       "'craits-arena[ray]' (the same Ray version as the cluster's)") from None
    return ray


def connect(cluster: RayCluster, workdir: Path | None, private: Sequence[Path] = ()) -> int:
    """Join the cluster as its driver; the CPUs it has (one worker slot each).

    The bot directory is shipped unless the cluster shares it (or there is none), without
    the ``private`` files and directories in it (the store and the logs: no node needs them,
    and no bot may read them); Ray also leaves out what its ``.gitignore`` and ``.rayignore``
    name."""
    ray = ray_module()
    check_reachable(cluster.address)
    env: dict[str, Any] = {}
    if not cluster.shared and workdir is not None:
        env = {"working_dir": str(workdir), "excludes": _excludes(workdir, private)}
    try:  # Ray's own log lines (its warnings among them) stay in the cluster's logs
        ray.init(address=cluster.address, runtime_env=env, log_to_driver=False,
                 logging_level=logging.ERROR)
    except (ConnectionError, ValueError, RuntimeError) as exc:
        raise RayError(f"cannot join the Ray cluster at {cluster.address}: {exc}") from None
    _cluster_errors_to_stderr()
    return int(ray.cluster_resources().get("CPU", 0))


def _excludes(workdir: Path, private: Sequence[Path]) -> list[str]:
    """``private`` paths inside ``workdir``, as patterns anchored at its root."""
    root = workdir.resolve()
    return [f"/{path.resolve().relative_to(root).as_posix()}"
            for path in private if path.resolve().is_relative_to(root)]


def check_reachable(address: str) -> None:
    """``RayError`` unless something listens at ``HOST:PORT`` (``auto`` is Ray's to find):
    ``ray.init`` would wait for an absent head for many minutes, saying nothing."""
    host, colon, port = address.rpartition(":")
    if address == "auto":
        return
    if not colon or not port.isdigit():
        raise RayError(f"--ray {address}: give the address of the cluster's head as HOST:PORT "
                       "(the port of `ray start --head --port`, 6379 by default), or auto")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_S).close()
    except OSError as exc:
        raise RayError(f"cannot reach the Ray cluster's head at {address} "
                       f"({exc.strerror or exc}): is it started (ray start --head) and is "
                       "this its address?") from None


def _cluster_errors_to_stderr() -> None:
    """Ray's driver prints the cluster's error messages (a node that died, an actor that
    cannot be placed) on stdout, from a thread of its own, through ``print_to_stdstream``;
    this process's stdout is for its results (``--json``), so they go to stderr, where they
    belong. Ray's private module is patched only if it still has that function."""
    worker: Any = importlib.import_module("ray._private.worker")
    printer = getattr(worker, "print_to_stdstream", None)
    if printer is None or getattr(printer, "craits_stderr", False):
        return

    def to_stderr(data: dict[str, Any], ignore_prefix: bool) -> None:
        printer({**data, "is_err": True}, ignore_prefix)

    to_stderr.craits_stderr = True  # type: ignore[attr-defined]
    worker.print_to_stdstream = to_stderr


def keep_sigterm(handler: Any) -> None:
    """Put back ``handler`` (``signal.getsignal`` before ``connect``) for SIGTERM, from the
    main thread. Joining a cluster installs abseil's failure handler for SIGTERM (Ray's
    ``logging.cc``), which prints a stack and arms a 3-second alarm that aborts the process
    (SIGABRT) however its shutdown goes: a service stopping its actors and their bots takes
    longer, so ``kill`` ended ``craits contest serve --ray`` with status -6 (and ``craits
    tournament run --ray`` too, when stopping took over 3 s). Python's own handler
    (``craits.cli.main``'s: SIGTERM relayed as Ctrl-C) is put back in its place."""
    if handler is not None and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, handler)


async def join(cluster: RayCluster, workdir: Path | None, private: Sequence[Path] = ()) -> int:
    """``connect`` for a trio program (in a thread: joining takes seconds), keeping its SIGTERM
    handler (``keep_sigterm``), so that a ``kill`` stops a run or a service as without Ray."""
    handler = signal.getsignal(signal.SIGTERM)
    cpus = await trio.to_thread.run_sync(connect, cluster, workdir, private)
    keep_sigterm(handler)
    return cpus


def disconnect() -> None:
    """Leave the cluster (the actors of this run end with it)."""
    ray_module().shutdown()


class RayTables:
    """The tables of one worker slot: a ``TableWorker`` actor somewhere on the cluster."""

    def __init__(self, number: int, actor: Any) -> None:
        self.number = number
        self.busy: Counter[str] = Counter()
        self.actor = actor
        self.gate: PhaseGate | None = None
        """Shared by every actor of the run (``open_ray_workers``)."""

    async def play(self, job: Job) -> FinishedGame:
        """Have the actor play the job; its finished game (Ray replays it if the actor dies)."""
        if self.gate is not None:
            await self.gate.enter(job)
        result = await result_of(self.actor.play.remote(job))
        if isinstance(result, Failure):
            raise ERRORS.get(result.kind, WorkerError)(result.message)
        assert isinstance(result, FinishedGame), "a Ray worker sent something else as a game"
        return result

    async def end_phase(self, phase: int) -> None:
        """Have the actor end its sandboxed processes of other seatings (``PhaseGate``)."""
        failure = await result_of(self.actor.enter_phase.remote(phase))
        if isinstance(failure, Failure):
            raise ERRORS.get(failure.kind, WorkerError)(failure.message)

    async def ready(self) -> None:
        """Wait until the actor's bots are all in (or raise what kept them out)."""
        failure = await result_of(self.actor.ready.remote())
        if isinstance(failure, Failure):
            raise ERRORS.get(failure.kind, WorkerError)(failure.message)

    async def close(self) -> None:
        """Let the actor stop its bots, then end it for good."""
        ray = ray_module()
        with suppress(Exception):
            await result_of(self.actor.stop.remote(), timeout=STOP_WAIT_S)
        ray.kill(self.actor, no_restart=True)


async def result_of(ref: Any, timeout: float = float("inf")) -> object:
    """What a Ray call returned, awaited in trio with no thread blocked on it: the call's
    future wakes this task through trio's token when it completes."""
    future = ref.future()
    done = trio.Event()
    token = trio.lowlevel.current_trio_token()

    def wake(_: object) -> None:
        with suppress(trio.RunFinishedError):
            token.run_sync_soon(done.set)

    future.add_done_callback(wake)
    with trio.move_on_after(timeout):
        await done.wait()
    return future.result(timeout=0)


@asynccontextmanager
async def open_ray_workers(
    setup: WorkerSetup, count: int, cluster: RayCluster, concurrency: int,
) -> AsyncIterator[Sequence[RayTables]]:
    """``count`` worker actors on the cluster with their bots in (``connect`` first)."""
    ray = ray_module()
    actor_class = ray.remote(TableWorker).options(
        num_cpus=1, max_restarts=-1, max_task_retries=-1, scheduling_strategy="SPREAD",
        max_concurrency=concurrency + 3,  # its tables, ``ready``, ``enter_phase``, ``stop``
    )
    shipped = not cluster.shared and setup.workdir is not None
    workers: list[RayTables] = []
    try:
        for number in range(1, count + 1):
            actor = actor_class.remote(dataclasses.replace(setup, number=number), shipped)
            workers.append(RayTables(number, actor))
        for worker in workers:
            await worker.ready()
        gate = PhaseGate(config_from_dict(setup.config), workers)
        for worker in workers:
            worker.gate = gate
        yield workers
    finally:
        with trio.CancelScope(shield=True):
            for worker in workers:
                await worker.close()
