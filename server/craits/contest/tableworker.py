"""Playing one claimed ladder table: in the service's own process, or in a table worker process.

``play_table`` is the one way a table is played: its missing seatings through ``dealsets``
(fair play unchanged: every version sandboxed, seating-major, one process per seating), each game
recorded in the store as it ends (``ladderstore.record_game``: one transaction, ``UNIQUE
(table_id, rotation)``), and each game shown live through a ``LiveFeed``.

A table worker process (``python -m craits.contest.tableworker FD NICE``, started by
``tableworker_pool``) runs ``play_table`` for each ``TableOrder`` the service sends over its
socket pair (a ``multiprocessing`` connection, as tournament workers have), one table at a time,
with its own referee and its own connection to the store. It records its games itself, so that
the web process neither encodes records nor waits on their fsync. What the service gets is
each game's public steps, made here with ``live.Steps`` (redaction at source), the recorded
game's id and the table's end, and, as separate ``whole`` messages, the same steps with every
card (``livewhole.whole_step``) for the organiser's view alone, made only for the games the
service asks for (a ``("whole", KEY)`` message: the organiser looks at that game, ``SentFeed.want``)
from then on, the first with everything since the deal: the service keeps those apart from the
public ones (``livewhole.OrganisedLiveGames``) and only the organiser's pages read them.

A worker's messages during a table are sent in batches (``Batched``: one ``("batch", [...])``
at most every ``BATCH_S``), not one per step: a quick game makes hundreds of steps a second,
and each message woke the web process (a thread hop, since its trio runs as asyncio's guest)
and was pickled on its own; spectators' streams are paced at ``web.live.PACE_S`` anyway.

Exactly once: the service gives a claimed table to one worker at a time, and a seating recorded
twice (a worker that recorded a game just as the service gave up on it) is ignored by the
store's ``UNIQUE`` guard. A worker ends as soon as its connection does: the service let it go,
or died (kill -9 included: the kernel closes its end). The table in play is then cancelled (a
game already over is still recorded: ``play_deal_set`` shields that) and its bots are stopped,
so no worker plays on for a dead service; the next ``serve`` replays the missing seatings.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Final, Protocol

import trio

from craits.dealkey import DealKey
from craits.engine import Game
from craits.exception_groups import sole_exception
from craits.tournament.plan.schedule import Job
from craits.tournament.run.botpool import BotPoolError
from craits.tournament.run.worker_process import receive, run_worker
from craits.tournament.store.game_records import FinishedGame

from .dealsets import Entrant, Setting, play_deal_set
from .ladderstore import game_at, record_game
from .live import Steps
from .livewhole import whole_step
from .store import ContestStore


@dataclass(frozen=True, slots=True)
class TableOrder:
    """One claimed table to play: what ``play_table`` needs, and nothing of the store's."""

    table_id: int
    entrants: tuple[Entrant, ...]
    """The versions in the seat order of the first seating, labelled ``v<id>``."""
    versions: tuple[int, ...]
    """Each entrant's version id."""
    names: tuple[str, ...]
    """Each entrant's name for spectators (``owner vN``)."""
    key: DealKey
    """The table's own deal key (``ladderstore.table_key``)."""
    seatings: tuple[int, ...]
    """The seatings still to play."""
    log_dir: Path


@dataclass(frozen=True, slots=True)
class WorkerSetup:
    """What a table worker is told once, before its first table."""

    store: Path
    setting: Setting
    nice: int = 0
    """How far below the service's a table worker's CPU priority is (``[ladder] worker_nice``,
    ``run_below``). Ray actors do not use it: their nodes' priorities are the cluster's."""


class LiveFeed(Protocol):
    """Where the games of a table are shown while played: ``LiveGames`` in the service's
    process, the socket to the service in a worker."""

    def start(self, key: str, seats: Sequence[str]) -> Callable[[Game], None]:
        """A new live game; its observer for the referee."""
        ...

    def end(self, key: str, game: int | None) -> None:
        """Game ``key`` was recorded as ``game``."""
        ...


Played = Callable[[int, Job, Sequence[int], FinishedGame], None]
"""What becomes of one played seating: its table, its job, its seats' version ids, the game."""


def live_key(table_id: int, rotation: int) -> str:
    """The live feed's key of one seating of a table."""
    return f"{table_id}-{rotation}"


def record_played(store: ContestStore, clock: Callable[[], float], live: LiveFeed,
                  table_id: int, job: Job, seats: Sequence[int], game: FinishedGame) -> None:
    """Record one played seating in the store (once: ``record_game``) and end its live game
    with the recorded game's id."""
    record_game(store, table_id, job.rotation, seats, game, job.game_id, clock(),
                (job.seed, job.rules_json))
    live.end(live_key(table_id, job.rotation), game_at(store, table_id, job.rotation))


async def play_table(order: TableOrder, setting: Setting, store: ContestStore,
                     clock: Callable[[], float], live: LiveFeed) -> None:
    """Play the order's seatings, recording each game and showing it live (module doc).
    Raises ``BotPoolError`` as ``play_deal_set`` does (the table cannot be played)."""
    await play_seatings(order, setting, partial(record_played, store, clock, live), live)


async def play_seatings(order: TableOrder, setting: Setting, played: Played,
                        live: LiveFeed) -> None:
    """Play the order's seatings, each game shown live while played and given to ``played``
    as it ends (a Ray actor, which has no store, sends it to the service: ``raytables``)."""
    labels = {e.label: v for e, v in zip(order.entrants, order.versions, strict=True)}
    names = {e.label: n for e, n in zip(order.entrants, order.names, strict=True)}

    async def record(job: Job, game: FinishedGame) -> None:
        played(order.table_id, job, [labels[s] for s in job.seats], game)

    def watch(job: Job) -> Callable[[Game], None]:
        return live.start(live_key(order.table_id, job.rotation), [names[s] for s in job.seats])

    await play_deal_set(order.entrants, order.key, setting, order.log_dir, record,
                        order.seatings, watch)


class Sender(Protocol):
    """Where a player's messages to the service go: the worker's connection, or a Ray actor's
    outbox (``raytables``)."""

    def send(self, message: Any) -> None:
        """Send one message (pickled)."""
        ...


BATCH_S: Final = 0.05
"""How long a worker's messages wait at most before they are sent (``Batched``)."""


@dataclass(slots=True)
class _Sent:
    """A game being played: its public steps, its whole ones once wanted, the game as last
    observed (for the first whole step)."""

    public: Steps
    whole: Steps | None
    game: Game | None = None


class SentFeed:
    """A player's ``LiveFeed``: each game's public steps (``Steps``) sent to the service, each
    followed by the same step whole (``livewhole.whole_step``) for the organiser's view: for
    every game, or with ``on_demand`` only for those the service asks for (``want``)."""

    def __init__(self, conn: Sender, on_demand: bool = False) -> None:
        self._conn = conn
        self._on_demand = on_demand
        self._games: dict[str, _Sent] = {}

    def start(self, key: str, seats: Sequence[str]) -> Callable[[Game], None]:
        self._conn.send(("live", key, tuple(seats)))
        sent = self._games[key] = _Sent(
            Steps(tuple(seats)), None if self._on_demand else Steps(tuple(seats), whole_step))

        def observe(game: Game) -> None:
            sent.game = game
            step = sent.public.next(game)
            if step is not None:
                self._conn.send(("step", key, step, game.is_over))
                self._send_whole(key, sent)

        return observe

    def _send_whole(self, key: str, sent: _Sent) -> None:
        if sent.whole is not None and sent.game is not None:
            step = sent.whole.next(sent.game)
            if step is not None:
                self._conn.send(("whole", key, step))

    def want(self, key: str) -> None:
        """The organiser looks at game ``key``: its whole steps from now on, the first (sent
        now) with everything so far. Nothing for a game not played here, or no longer."""
        sent = self._games.get(key)
        if sent is not None and sent.whole is None:
            sent.whole = Steps(sent.public.seats, whole_step)
            self._send_whole(key, sent)

    def end(self, key: str, game: int | None) -> None:
        self._games.pop(key, None)
        self._conn.send(("recorded", key, game))


class Batched:
    """A ``Sender`` that keeps messages until ``flush`` sends them as one ``("batch", [...])``
    (module doc)."""

    def __init__(self, conn: Sender) -> None:
        self._conn = conn
        self._kept: list[Any] = []

    def send(self, message: Any) -> None:
        self._kept.append(message)

    def flush(self) -> None:
        """Send what is kept, in order, as one message (nothing when nothing is kept)."""
        if self._kept:
            kept, self._kept = self._kept, []
            self._conn.send(("batch", kept))

    async def flushing(self, every: float = BATCH_S) -> None:
        """``flush`` every ``every`` seconds, forever (the caller cancels it)."""
        while True:
            await trio.sleep(every)
            self.flush()


async def serve(conn: Connection, setup: WorkerSetup) -> None:
    """Play each table the service sends, one at a time, until it closes the connection."""
    store = ContestStore.open(setup.store)
    try:
        while (order := await receive(conn)) is not None:
            if is_want(order):
                continue  # for a game of the last table, ended since
            assert isinstance(order, TableOrder), "the service sent something else as a table"
            outcome = await _play_watched(conn, order, setup.setting, store)
            if outcome is None:
                return  # the service is gone (or let us go) mid-table
            conn.send(outcome)
    except BaseException as raised:  # a send may find the service gone before the watcher
        exc = sole_exception(raised) if isinstance(raised, BaseExceptionGroup) else raised
        if not isinstance(exc, BrokenPipeError | ConnectionResetError):
            raise
        # the service is gone: nobody to tell
    finally:
        store.close()


async def _play_watched(conn: Connection, order: TableOrder, setting: Setting,
                        store: ContestStore) -> tuple[str, str] | None:
    """Play the table while listening to the connection: during a table the service sends only
    the games the organiser looks at (``SentFeed.want``), so the connection's end means it
    closed; the table is cancelled then (None). Else ``("done", "")`` or ``("void", why)``,
    sent after every message of the table (``Batched``)."""
    outcome: tuple[str, str] | None = None
    sender = Batched(conn)
    feed = SentFeed(sender, on_demand=True)
    async with trio.open_nursery() as nursery:

        async def listen() -> None:
            while (message := await receive(conn)) is not None:
                if is_want(message):
                    feed.want(message[1])
            nursery.cancel_scope.cancel()

        nursery.start_soon(listen)
        nursery.start_soon(sender.flushing)
        try:
            await play_table(order, setting, store, time.time, feed)
            outcome = ("done", "")
        except BotPoolError as exc:  # anything else ends the worker, which the service sees
            outcome = ("void", str(exc))
        nursery.cancel_scope.cancel()
    if outcome is not None:
        sender.flush()
    return outcome


def is_want(message: Any) -> bool:
    """Whether ``message`` is the service's ``("whole", KEY)``: the organiser looks at game
    KEY (``SentFeed.want``)."""
    return isinstance(message, tuple) and len(message) == 2 and message[0] == "whole"


def run_below(nice: int) -> None:
    """Lower this process's CPU priority by ``nice`` (0: leave it), for good: the games are
    batch work and the web pages interactive, so when both want a core the service's pages
    should get it first. Linux's niceness is a thread's: set here before any thread starts,
    every thread, and every process the worker starts (its bots), inherits it. It weighs
    against the threads of the service's scheduling group: with the kernel's autogroups (on by
    default on desktops and many servers) that is its session, which ``TableWorker`` keeps the
    worker in (a process group of its own, not a session); under systemd, the unit's control
    group. So the games yield to the pages, not to the rest of the machine, against which the
    contest weighs as a whole. Sandboxed bots are not held to it where control groups hold
    them (``hosting.botgroup``: their group's weight counts, the niceness only among them) or
    in autogroups of their own (they start sessions of their own): docs/contests.md."""
    if nice > 0:
        os.nice(nice)


def main(argv: list[str]) -> int:
    """Entry point: ``FD`` is this end of the socket pair to the service, ``NICE`` how far
    below it to run (``run_below``: set here, before any thread starts, so every one inherits
    it); then ``run_worker``, with the referee's gRPC always, every table's bots are
    processes."""
    run_below(int(argv[1]) if len(argv) > 1 else 0)
    return run_worker(argv, serve)


if __name__ == "__main__":  # run from the module's importable copy: the service pickles
    from craits.contest import tableworker  # its own TableOrder, not this __main__'s

    sys.exit(tableworker.main(sys.argv[1:]))
