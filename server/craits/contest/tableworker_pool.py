"""The ladder's table players, seen from the service: worker processes, or the service itself.

``craits contest serve DIR --workers N`` plays N ladder tables at once, each in a table worker
process of its own (``tableworker``), so the web process only chooses, claims and shows: the
referees, the bots' gRPC and the records' encoding and writing are the workers'. ``--workers 0``
plays one table at a time in the service's own process, as the ladder always did (``InProcess``;
the tests of the ladder's logic and the throughput benchmark's baseline use it).

Started as tournament workers are (``craits.tournament.run.worker_pool``): ``Popen`` from the
service's trio thread, a socket pair as a ``multiprocessing`` connection (pickled messages), a
process group of its own (a Ctrl-C at the terminal reaches only the service, which lets the workers
go; not a session of its own as a tournament's, so that the kernel's autogroups count the service
and its workers as one and the worker's lower priority, ``[ladder] worker_nice``, weighs against the
pages: ``tableworker.run_below``), and the service's death ends every worker (its end of the socket
closes; the worker cancels its table and stops its bots). Unlike a tournament's, a worker's death
does not stop the service: ``play`` raises ``WorkerGone`` once the process has surely ended (it is
killed if its connection ended without it), and the ladder starts a new one and replays the table's
missing seatings.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, Final, Protocol

import trio

from craits.tournament.run.botpool import BotPoolError
from craits.tournament.run.worker_process import receive

from .live import LiveGames, Step
from .livewhole import add_whole_step, players_told
from .store import ContestStore
from .tableworker import TableOrder, WorkerSetup, play_table

STOP_WAIT_S: Final = 10.0
"""How long a worker let go may take to stop its bots before it is killed."""


class WorkerGone(Exception):
    """A table worker process ended while it played a table (its recorded games stay)."""


class TablePlayer(Protocol):
    """A place that plays one table at a time for the ladder."""

    async def play(self, order: TableOrder, live: LiveGames) -> str | None:
        """Play the table; None when every seating was played, else why the table cannot be
        (a ``BotPoolError``'s message, naming the version). ``WorkerGone`` if the player died:
        the seatings it did not record are still missing."""
        ...

    async def restart(self) -> None:
        """Be ready to play again after ``WorkerGone``."""
        ...

    async def close(self) -> None:
        """Stop for good."""
        ...


@dataclass(frozen=True, slots=True)
class Ended:
    """A table's end, as its player said it."""

    why: str | None
    """None: every seating was played; else why the table cannot be (``TablePlayer.play``)."""


def relay(message: tuple[Any, ...], live: LiveGames, player: str) -> Ended | None:
    """Act on one message of a table's player (``tableworker.SentFeed`` and ``serve``): show
    its live steps, end its recorded games; the table's end when it is one. ``WorkerGone``
    for a message of no known kind (``player`` names the one that sent it)."""
    kind = message[0]
    if kind == "batch":  # a worker's messages sent together (``tableworker.Batched``)
        ends = [relay(each, live, player) for each in message[1]]
        return next((end for end in ends if end is not None), None)
    if kind == "live":
        live.start(message[1], message[2])
    elif kind == "step":
        step = message[2]
        assert isinstance(step, Step), "a worker sent something else as a step"
        live.step(message[1], step, bool(message[3]))
    elif kind == "whole":  # the organiser's: kept apart (livewhole)
        step = message[2]
        assert isinstance(step, Step), "a worker sent something else as a step"
        add_whole_step(live, message[1], step)
    elif kind == "recorded":
        live.end(message[1], message[2])
    elif kind == "done":
        return Ended(None)
    elif kind == "void":
        return Ended(str(message[1]))
    else:
        raise WorkerGone(f"{player} said {kind!r}")
    return None


class InProcess:
    """``--workers 0``: the table is played in the service's own process and trio loop."""

    def __init__(self, setup: WorkerSetup, store: ContestStore,
                 clock: Callable[[], float]) -> None:
        self._setup, self._store, self._clock = setup, store, clock

    async def play(self, order: TableOrder, live: LiveGames) -> str | None:
        try:
            await play_table(order, self._setup.setting, self._store, self._clock, live)
        except BotPoolError as exc:
            return str(exc)
        return None

    async def restart(self) -> None:
        """Nothing to restart: this process did not die."""

    async def close(self) -> None:
        """Nothing to stop."""


class TableWorker:
    """One table worker process (module doc)."""

    def __init__(self, number: int, setup: WorkerSetup) -> None:
        self.number = number
        self._setup = setup
        self._process, self._conn = self._start()

    def _start(self) -> tuple[subprocess.Popen[bytes], Connection]:
        ours, theirs = socket.socketpair()
        process = subprocess.Popen(
            [sys.executable, "-m", "craits.contest.tableworker", str(theirs.fileno()),
             str(self._setup.nice)],
            pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, process_group=0)
        theirs.close()
        conn = Connection(ours.detach())
        conn.send(self._setup)
        return process, conn

    @property
    def pid(self) -> int:
        """The worker process's id (tests kill it)."""
        return self._process.pid

    async def play(self, order: TableOrder, live: LiveGames) -> str | None:
        try:
            self._conn.send(order)
        except OSError:
            raise await self._gone() from None
        with players_told(live, self._want):
            while True:
                message = await receive(self._conn)
                if message is None:
                    raise await self._gone()
                ended = relay(message, live, f"table worker {self.number}")
                if ended is not None:
                    return ended.why

    def _want(self, key: str) -> None:
        """Ask the worker for game ``key``'s whole steps (``tableworker.SentFeed.want``): the
        organiser looks at it. A worker that has died meanwhile is found by ``play``."""
        with suppress(OSError):
            self._conn.send(("whole", key))

    async def _gone(self) -> WorkerGone:
        """The error for a worker whose connection ended, once its process has surely ended
        (so that it cannot record beside the table's replay)."""
        code = await self._ended()
        return WorkerGone(f"table worker process {self.number} (pid {self.pid}) ended with "
                          f"status {code} in the middle of a table")

    async def _ended(self) -> int:
        try:
            return await trio.to_thread.run_sync(self._process.wait, STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            self._process.kill()
            return await trio.to_thread.run_sync(self._process.wait)

    async def restart(self) -> None:
        """A new process in place of the one that ended."""
        self._conn.close()
        await self._ended()
        self._process, self._conn = self._start()

    async def close(self) -> None:
        """Let the worker go (it stops its bots and exits), and make sure it has."""
        self._conn.close()
        await self._ended()


@asynccontextmanager
async def open_players(setup: WorkerSetup, workers: int, store: ContestStore,
                       clock: Callable[[], float]) -> AsyncIterator[list[TablePlayer]]:
    """``workers`` table worker processes, or with 0 the service itself as the one player;
    every worker is let go (and waited for) when the body ends, however it ends."""
    players: list[TablePlayer] = []
    try:
        if workers == 0:
            players.append(InProcess(setup, store, clock))
        players.extend(TableWorker(n, setup) for n in range(1, workers + 1))
        yield players
    finally:
        with trio.CancelScope(shield=True):
            async with trio.open_nursery() as nursery:  # they stop their bots side by side
                for player in players:
                    nursery.start_soon(player.close)
