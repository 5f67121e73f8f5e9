"""A worker process: plays the tables the run process sends it, with bots of its own.

``python -m craits.tournament.run.worker_process FD`` talks to the run process over one end of a
socket pair (``FD``, a ``multiprocessing`` connection: pickled messages). It is told the
tournament first (``WorkerSetup``), starts its own referee (only if some bot has a process) and
its own bot pool, says ``ready``, then plays every job it is sent, as many at once as it is
sent, and sends each finished game back; it never opens the store. The run process is the only
one that claims and records, so a worker holds nothing that is not played again on a resume.
When the run process shows live games (``WorkerSetup.live``: ``tournament run --web``), the
worker also sends each game's public events as it is played (``LiveRelay``), redacted here, so
no hidden card of a game in play ever leaves the process that plays it.

A worker ends when the run process closes the connection, or dies (kill -9 included: the socket
ends with it): its tables are cancelled and its bots stopped. A bot that cannot start, or keeps
dying, is reported as an ``error`` naming the exception's class, which the run process raises in
its own name, so the command that ran the tournament says what it says without workers.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Final, TypeVar

import trio

from craits.engine import Game
from craits.exception_groups import sole_exception
from craits.hosting.launcher import LaunchError
from craits.referee import bridge
from craits.tournament.plan.config import config_from_dict
from craits.tournament.plan.schedule import Job

from .botpool import BotCrashError, BotPool, BotPoolError, BotStartError, Isolation
from .local_tables import LocalTables, referee_for

REMOTE_CONNECT_S = 30.0
"""Workers never host remote bots (the runner keeps those tournaments in one process)."""

ERRORS: dict[str, type[Exception]] = {
    cls.__name__: cls for cls in (BotCrashError, BotStartError, BotPoolError, LaunchError)
}
"""The errors a worker reports by name, raised again as themselves by the run process."""


@dataclass(frozen=True, slots=True)
class WorkerSetup:
    """What a worker is told before its first job."""

    tournament_id: str
    config: dict[str, Any]
    """The stored configuration's ``to_dict`` form."""
    log_dir: Path
    workdir: Path | None
    hidden: tuple[Path, ...]
    host: str
    number: int = 0
    """Which worker this is (1, 2, ...): its bots' logs are named with it."""
    account_owner: int | None = None
    """Whose control group each sandboxed bot's processes share on this machine
    (``botgroup.Account``); None: this process's parent's, which is the run process for a
    worker process and the node's raylet for a Ray actor, so that every worker of the run on
    one machine puts a bot's processes in one group."""
    live: bool = False
    """Send each game's public events while it is played (``LiveRelay``)."""


@asynccontextmanager
async def open_tables(setup: WorkerSetup) -> AsyncIterator[LocalTables]:
    """The tables of one worker: its referee (only if some bot has a process) and its bot pool,
    all bots in; the bots are stopped when the body ends, however it ends. What every place that
    plays tables for a run process holds: a worker process (``serve``) or a Ray actor
    (``rayworker``)."""
    config = config_from_dict(setup.config)
    isolation = Isolation(config.isolated, setup.hidden)
    async with (
        referee_for(config, (setup.host, 0), isolation) as referee,
        trio.open_nursery() as nursery,
    ):
        pool = BotPool(referee, nursery, setup.log_dir, workdir=setup.workdir,
                       isolation=isolation, log_tag=f"w{setup.number}",
                       account_owner=setup.account_owner or os.getppid())
        try:
            await pool.start(config.bots, REMOTE_CONNECT_S)
            yield LocalTables(pool, config, setup.tournament_id)
        finally:
            with trio.CancelScope(shield=True):
                await pool.stop()
            nursery.cancel_scope.cancel()


def reported(raised: BaseException) -> Exception | None:
    """The error a worker reports to its run process (one of ``ERRORS``), else None."""
    exc = sole_exception(raised) if isinstance(raised, BaseExceptionGroup) else raised
    return exc if isinstance(exc, Exception) and type(exc).__name__ in ERRORS else None


SPECTATOR: Final = -1
"""The viewer no seat is: ``Event.seen_by`` removes the cards of every private event for it."""
LIVE_EVERY_S: Final = 0.1
"""How often at most a game's new public events are sent (and always at its end)."""


@dataclass(slots=True)
class LiveRelay:
    """One game's public events sent to the run process while it is played: ``("live",
    GAME_INDEX, EVENTS, OVER)``, the events since the last message as a viewer with no seat
    sees them (``Event.seen_by(SPECTATOR)``: a deal or a draw keeps how many cards, not which).
    Sent at most every ``LIVE_EVERY_S`` and at the end, not after every move: a message per
    move would cost the tables of fast bots more than their moves."""

    conn: Connection
    game_index: int
    seen: int = 0
    sent_at: float = float("-inf")

    def observe(self, game: Game) -> None:
        """The referee's ``watch``: told the game after each move."""
        now = trio.current_time()
        if not game.is_over and now - self.sent_at < LIVE_EVERY_S:
            return
        new = game.events[self.seen:]
        self.seen, self.sent_at = len(game.events), now
        if new or game.is_over:
            self.conn.send(("live", self.game_index, [e.seen_by(SPECTATOR) for e in new],
                            game.is_over))


async def serve(conn: Connection, setup: WorkerSetup) -> None:
    """Play what the run process sends until it closes the connection."""
    try:
        async with open_tables(setup) as tables:
            if setup.live:
                tables.watch = lambda job: LiveRelay(conn, job.game_index).observe
            conn.send(("ready",))
            await _play_sent(conn, tables)
    except BaseException as raised:
        exc = sole_exception(raised) if isinstance(raised, BaseExceptionGroup) else raised
        if isinstance(exc, BrokenPipeError | ConnectionResetError):
            return  # the run process is gone (or let us go): nobody to tell
        error = reported(raised)
        if error is None:
            raise
        conn.send(("error", type(error).__name__, str(error)))


async def _play_sent(conn: Connection, tables: LocalTables) -> None:
    async with trio.open_nursery() as nursery:
        while (message := await receive(conn)) is not None:
            if message[0] == "phase":
                nursery.start_soon(_enter_phase, conn, tables, message[1])
            else:
                nursery.start_soon(_play_one, conn, tables, message[1])
        nursery.cancel_scope.cancel()


async def _enter_phase(conn: Connection, tables: LocalTables, phase: int) -> None:
    """End this worker's processes of other seatings (``LocalTables.enter_phase``), and say so:
    the run process starts the new seating only once every worker has."""
    await tables.enter_phase(phase)
    conn.send(("phased", phase))


async def _play_one(conn: Connection, tables: LocalTables, job: Job) -> None:
    finished = await tables.play(job)
    conn.send(("done", finished))


async def receive(conn: Connection) -> Any:
    """The next message, waiting in trio; None once the other end has closed."""
    await trio.lowlevel.wait_readable(conn.fileno())
    try:
        return conn.recv()
    except (EOFError, OSError):
        return None


def needs_referee(config: dict[str, Any]) -> bool:
    """Whether the tournament has a bot with a process (then trio runs as gRPC's guest)."""
    return any("python" not in bot for bot in config["bots"])


S = TypeVar("S")


def run_worker(argv: Sequence[str], serve: Callable[[Connection, S], Awaitable[None]],
               hosted: Callable[[S], bool] = lambda setup: True) -> int:
    """A worker process's entry point, whatever it plays (this module's tournament workers,
    the contest's table workers): ``ARGV[0]`` is this end of the socket pair to the process
    that started it, which sends the set-up first; then ``serve(conn, setup)`` runs until that
    process lets it go, hosted by the referee's gRPC bridge (trio as asyncio's guest) when
    ``hosted(setup)``, else on trio alone. 0 when it ends, or when the parent let it go before
    the set-up; 130 on Ctrl-C (the parent was interrupted too; it says what to do)."""
    conn = Connection(int(argv[0]))
    try:
        setup: S = conn.recv()
    except EOFError:
        return 0
    try:
        if hosted(setup):
            bridge.run(serve, conn, setup)
        else:
            trio.run(serve, conn, setup)
    except KeyboardInterrupt:
        return 130
    return 0


def main(argv: list[str]) -> int:
    """Entry point: ``FD`` is this end of the socket pair to the run process."""
    return run_worker(argv, serve, lambda setup: needs_referee(setup.config))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
