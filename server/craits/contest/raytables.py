"""The ladder's tables on a Ray cluster, seen from the service: ``craits contest serve --ray``.

Each player is a ``rayactor.ContestTables`` actor placed by Ray on some node (one CPU each,
spread over the nodes), playing one table at a time as a table worker process does
(``tableworker_pool``): the service still chooses, claims and shows, and it is the store's one
writer. Where a table worker records its games itself, an actor cannot (its node may be another
machine): the service takes its messages in batches (``take``, at most ``TAKE_S`` apart) and
records each game it gets (``tableworker.record_played``: once, under ``UNIQUE (table_id,
rotation)``), shows the live steps (``tableworker_pool.relay``: public, and the organiser's
for the games the organiser looks at, asked for as from a worker: ``livewhole.players_told``)
and learns the table's end.

The versions' files reach the nodes through Ray's object store (``Shipper``): each version's
tree (``bots/<hash>``, named by its content hash) is packed once and put there, and a node
fetches only what its cache lacks (``rayactor.cached_bot``, which checks the hash); no shared
filesystem is needed, and the contest's directory (the store, the logs, other versions) never
leaves the service's machine. Every node must have bubblewrap, and room for the referee's Unix
sockets: an actor on a node without either says so (``ContestTables.ready``), and the service
refuses to start (``RayError``) or, for a replacement actor that lands there later, counts it
as the death of that table's player.

Nothing lost, nothing twice: a game counts once the service has recorded it. When an actor's
process or its node dies (kill -9 included), the call in flight fails, the games it had not
sent are lost, and ``play`` raises ``WorkerGone``: the ladder starts a new actor (``restart``)
and gives it the table's missing seatings (``ladder.WORKER_DEATHS`` deaths void the table), as
for a table worker process. Ray never retries a call here (nor restarts an actor): a replay of
a call would replay seatings the service has recorded already. When the service dies, Ray ends
its actors (they belong to it), their bots with them, and the next ``serve`` replays the tables
left open.
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any, Final

import trio

from craits.tournament.run.ray_pool import (
    RayCluster,
    RayError,
    disconnect,
    join,
    ray_module,
    result_of,
)
from craits.tournament.run.runner import ray_worker_count

from .archive import ArchiveLimits
from .client import pack_directory
from .live import LiveGames
from .livewhole import players_told
from .rayactor import ContestTables
from .store import ContestStore
from .tableworker import TableOrder, WorkerSetup, record_played
from .tableworker_pool import TablePlayer, WorkerGone, relay

TAKE_S: Final = 0.2
"""How long one ``take`` waits on the actor for its next message: the live steps' delay at
most, and the service asks at most five times a second while a table is quiet."""
STOP_WAIT_S: Final = 15.0
"""How long the service waits for an actor to stop its bots before Ray kills it."""
SHIPPED_KEPT: Final = 64
"""Versions whose packed files the service keeps in Ray's object store (the most recently
seated): the playing versions and then some; an older one is packed again if seated again."""


class Shipper:
    """Each version's files in Ray's object store, by content hash (module doc)."""

    def __init__(self) -> None:
        self._refs: OrderedDict[str, Any] = OrderedDict()

    async def packed(self, order: TableOrder) -> dict[str, Any]:
        """The object of each of the order's versions, by content hash: the name of its
        directory (``bots/<hash>``, ``uploads``). A version not shipped yet is packed and put
        on a worker thread (a large tree takes a while), the rest here in trio."""
        found: dict[str, Any] = {}
        for entrant in order.entrants:
            digest = entrant.directory.name
            ref = self._refs.pop(digest, None)
            if ref is None:
                ref = await trio.to_thread.run_sync(_put_packed, entrant.directory)
            self._refs[digest] = found[digest] = ref
        while len(self._refs) > SHIPPED_KEPT:
            self._refs.popitem(last=False)
        return found


def _put_packed(directory: Path) -> Any:
    """``directory``'s whole tree, packed, in Ray's object store (its reference)."""
    return ray_module().put(pack_directory(directory, skipped=frozenset()))


class RayPlayer:
    """One ``ContestTables`` actor on the cluster, a ``TablePlayer`` for the ladder."""

    def __init__(self, number: int, make: Callable[[], Any], setup: WorkerSetup,
                 store: ContestStore, clock: Callable[[], float], shipper: Shipper) -> None:
        self.number = number
        self._make, self._setup, self._store, self._clock = make, setup, store, clock
        self._shipper = shipper
        self.actor = make()

    def _name(self) -> str:
        return f"Ray table actor {self.number}"

    async def ready(self) -> str | None:
        """Why the actor's node cannot play (no sandbox there), or None."""
        why = await result_of(self.actor.ready.remote())
        assert why is None or isinstance(why, str)
        return why

    async def play(self, order: TableOrder, live: LiveGames) -> str | None:
        errors = ray_module().exceptions.RayError
        try:
            refused = await self.ready()
            if refused is not None:
                raise WorkerGone(f"{self._name()} cannot play: {refused}")
            packed = await self._shipper.packed(order)
            await result_of(self.actor.start.remote(order, self._setup.setting, packed))
            with players_told(live, self._want):
                while True:
                    messages = await result_of(self.actor.take.remote(TAKE_S))
                    assert isinstance(messages, list), "an actor sent something else"
                    for message in messages:
                        if message[0] == "game":
                            record_played(self._store, self._clock, live, *message[1:])
                        elif message[0] == "gone":
                            raise WorkerGone(f"{self._name()} failed: {message[1]}")
                        else:
                            ended = relay(message, live, self._name())
                            if ended is not None:
                                return ended.why
        except errors as exc:
            raise WorkerGone(f"{self._name()} ended in the middle of a table: "
                             f"{type(exc).__name__}: {_first_line(exc)}") from None

    def _want(self, key: str) -> None:
        """Ask the actor for game ``key``'s whole steps (the organiser looks at it); not
        waited for: an actor that died meanwhile is found by ``play``."""
        self.actor.want.remote(key)

    async def restart(self) -> None:
        """A new actor in place of the one that died (wherever Ray places it)."""
        with suppress(Exception):  # it is gone already, or its node is
            ray_module().kill(self.actor, no_restart=True)
        self.actor = self._make()

    async def close(self) -> None:
        """Let the actor stop its bots, then end it for good."""
        with suppress(Exception):
            await result_of(self.actor.stop.remote(), timeout=STOP_WAIT_S)
        with suppress(Exception):
            ray_module().kill(self.actor, no_restart=True)


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [""])[0]


@asynccontextmanager
async def open_ray_players(setup: WorkerSetup, cluster: RayCluster, asked: int | None,
                           limits: ArchiveLimits, store: ContestStore,
                           clock: Callable[[], float]) -> AsyncIterator[list[TablePlayer]]:
    """Join the cluster and start ``asked`` actors (default: one per CPU of the cluster),
    each checked able to sandbox (``RayError`` naming the node otherwise); every actor is
    ended, and the cluster left, when the body ends, however it ends."""
    cpus = await join(cluster, None)  # a ``kill`` stops the service as without Ray
    players: list[RayPlayer] = []
    try:
        count = ray_worker_count(asked, cpus, sys.maxsize)  # a ladder never runs out of tables
        actor_class = ray_module().remote(ContestTables).options(
            num_cpus=1, max_restarts=0, max_task_retries=0, scheduling_strategy="SPREAD",
            max_concurrency=5)  # ``start`` or ``take``, ``ready``, ``want``, ``stop``, a spare

        def make() -> Any:
            return actor_class.remote(limits)

        shipper = Shipper()
        players.extend(RayPlayer(n, make, setup, store, clock, shipper)
                       for n in range(1, count + 1))
        for player in players:
            refused = await player.ready()
            if refused is not None:
                raise RayError(f"{refused}; mend that node as this says, or take it out of "
                               "the cluster")
        yield list(players)
    finally:
        with trio.CancelScope(shield=True):
            async with trio.open_nursery() as nursery:
                for player in players:
                    nursery.start_soon(player.close)
            await trio.to_thread.run_sync(disconnect)
