"""A contest's table player on a Ray node: the node's side of ``craits contest serve --ray``.

``ContestTables`` is what a table worker process is (``tableworker``), as a Ray actor: it plays
one claimed table at a time through ``tableworker.play_seatings``, so every version runs
sandboxed, seating-major, one process per seating, exactly as on the service's machine. What
differs is what a node lacks:

- the store: a node may be another machine, so it records nothing; each game goes back to the
  service (a ``("game", ...)`` message), which records it once (``raytables``);
- the service's socket: its messages (the ``tableworker.SentFeed`` ones: live steps, public,
  and whole for the games the organiser looks at, which the service asks for with ``want``;
  then ``done`` or ``void``) wait in an outbox that the service empties with ``take`` calls, a
  batch at a time;
- the bots' files: each version comes as its packed tree through Ray's object store
  (``raytables.Shipper``), is unpacked with the uploads' own rules (``archive.unpack``) and
  kept by its content hash in this node's cache (``cached_bots``), so a node fetches each
  version once, until it has not played there for a day; a tree whose hash differs from its
  name is refused;
- bubblewrap: a node without it could not sandbox the bots, so ``ready`` says so and the
  service refuses that node rather than play there unsandboxed; so too a node whose temporary
  directory is so deep that the referee's Unix sockets (the sandboxed bots' way to it) would
  not fit there (``referee.server.unix_sockets_problem``).

The table is played in a trio run hosted by asyncio (``bridge.run``: the referee's gRPC) on a
thread of the actor's own, started for the table; every bot process is forked by that thread,
which lives as long as the table (``hosting.spawn``). If the actor's process or its node dies,
its bots die with it (``--die-with-parent``) and the games it had not sent are lost: the
service replays the table's missing seatings on a new actor.
"""

from __future__ import annotations

import dataclasses
import fcntl
import os
import queue
import socket
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from functools import partial
from pathlib import Path
from typing import Any, Final

import trio

from craits import private
from craits.hosting import sandbox
from craits.referee import bridge
from craits.referee.server import unix_sockets_problem
from craits.tournament.plan.schedule import Job
from craits.tournament.run.botpool import BotPoolError
from craits.tournament.store.game_records import FinishedGame

from .archive import ArchiveLimits, remove_tree, unpack
from .dealsets import Setting
from .tableworker import BATCH_S, SentFeed, TableOrder, play_seatings
from .uploads import tree_hash

STOP_WAIT_S: Final = 10.0
"""How long ``stop`` waits for the table's bots to stop."""
CACHE_KEEP_S: Final = 24 * 3600.0
"""A version's files stay in a node's cache this long after a table of this node last seated
it (``cached_bots``)."""


class Outbox:
    """The messages for the service, in order (a ``tableworker.Sender``)."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()

    def send(self, message: Any) -> None:
        self._queue.put(message)

    def take(self, wait_s: float, linger_s: float = BATCH_S) -> list[tuple[Any, ...]]:
        """Every message waiting, after up to ``wait_s`` seconds for the first and
        ``linger_s`` more for those that follow it (a game in play makes a step every few
        milliseconds: a call for each would cost the service more than the steps, as a
        worker's message for each did: ``tableworker.Batched``)."""
        try:
            taken = [self._queue.get(timeout=wait_s)]
        except queue.Empty:
            return []
        time.sleep(linger_s)
        with suppress(queue.Empty):
            while True:
                taken.append(self._queue.get_nowait())
        return taken


def cache_root() -> Path:
    """This node's cache of versions' files, one for this user: readable by the sandboxed
    bots (which may run under user ids of their own), writable by this user alone."""
    root = Path(tempfile.gettempdir()) / f"craits-bots-{os.getuid()}"
    root.mkdir(mode=0o755, exist_ok=True)
    info = root.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        raise RuntimeError(f"{root} is not a directory of this user's that only it may write "
                           "to: remove it, or set TMPDIR elsewhere on this node")
    return root


def cached_bot(root: Path, digest: str, fetch: Callable[[], bytes],
               limits: ArchiveLimits) -> Path:
    """The directory of the version whose content hash is ``digest``: in the cache, or
    unpacked there now from what ``fetch`` gets (its tree as a tar.gz, from Ray's object
    store), checked against the hash, and renamed into place whole (another actor of this
    node may do the same at once: the first rename wins, the same content either way)."""
    final = root / digest
    if final.is_dir():
        return final
    work = Path(tempfile.mkdtemp(prefix=".incoming-", dir=root))
    try:
        upload = work / "upload"
        upload.write_bytes(fetch())
        tree = work / "tree"
        tree.mkdir(mode=0o755)
        unpack(upload, tree, limits)
        if tree_hash(tree)[2] != digest:
            raise RuntimeError(f"the files shipped for version {digest[:12]} do not have its "
                               "content hash")
        try:
            tree.rename(final)
        except OSError:
            if not final.is_dir():
                raise
    finally:
        remove_tree(work)
    return final


def cached_bots(root: Path, wanted: Mapping[str, Callable[[], bytes]], limits: ArchiveLimits,
                now: float) -> dict[str, Path]:
    """The directories of the ``wanted`` versions (content hash: how to fetch its files), each
    from the cache or fetched into it (``cached_bot``) and marked used at ``now``; then every
    version not used for ``CACHE_KEEP_S`` is removed from the cache, so a node of a contest of
    weeks keeps only the versions that still play. The actors of a node take turns (a lock
    file), so none removes a version another has just found: a version found was marked used,
    and a table lasts far less than ``CACHE_KEEP_S``."""
    with (root / ".lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        found = {digest: cached_bot(root, digest, fetch, limits)
                 for digest, fetch in wanted.items()}
        for path in found.values():
            os.utime(path, (now, now))
        for path in root.iterdir():
            if path.name != ".lock" and path.lstat().st_mtime < now - CACHE_KEEP_S:
                remove_tree(path)  # a version that no longer plays, or a killed unpacking
    return found


def node_log_dir(wanted: Path) -> Path:
    """Where the table's bot logs go on this node: the service's log directory when this node
    sees it (the same machine, or a shared filesystem), else this node's temporary
    directory."""
    if wanted.is_dir():
        return wanted
    here = Path(tempfile.gettempdir()) / f"craits-logs-{os.getuid()}" / "tables" / wanted.name
    private.make_dirs(here)
    return here


def _fetched(packed: Any) -> bytes:
    """A version's packed files, from Ray's object store."""
    import ray

    data = ray.get(packed)
    assert isinstance(data, bytes), "the service shipped something else as a version"
    return data


class ContestTables:
    """One table player on a Ray node (made a Ray actor by ``raytables``; module doc)."""

    def __init__(self, limits: ArchiveLimits) -> None:
        self._limits = dataclasses.replace(limits, max_ratio=1 << 30)
        """The uploads' limits; no ratio: the service packed the tree, and it was checked
        when it was uploaded."""
        self._outbox = Outbox()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._cancel: trio.CancelScope | None = None
        self._token: trio.lowlevel.TrioToken | None = None
        self._feed: SentFeed | None = None
        self._stopped = False

    def ready(self) -> str | None:
        """Why this node cannot play a contest's tables (naming its host), or None: no
        sandbox, or no room for the referee's Unix sockets (the sandboxed bots' only way to
        it) under the node's temporary directory."""
        missing = sandbox.missing_tools()
        if missing is not None:
            return (f"the Ray node on {socket.gethostname()} cannot sandbox the "
                    f"contestants' bots: {missing}")
        too_long = unix_sockets_problem()
        if too_long is not None:
            return (f"the Ray node on {socket.gethostname()} cannot give the sandboxed bots "
                    f"a referee's Unix socket under {tempfile.gettempdir()}: {too_long}")
        return None

    def start(self, order: TableOrder, setting: Setting, packed: Mapping[str, Any]) -> None:
        """Start playing ``order``'s seatings; its versions' files are fetched first (those
        not in this node's cache) from ``packed``, by content hash."""
        bots = cached_bots(cache_root(), {e.directory.name: partial(_fetched,
                                                                     packed[e.directory.name])
                                          for e in order.entrants}, self._limits, time.time())
        entrants = tuple(dataclasses.replace(e, directory=bots[e.directory.name])
                         for e in order.entrants)
        here = dataclasses.replace(order, entrants=entrants,
                                   log_dir=node_log_dir(order.log_dir))
        self._outbox = Outbox()
        self._thread = threading.Thread(target=self._play, args=(here, setting, self._outbox),
                                        name="craits-contest-table", daemon=True)
        self._thread.start()

    def take(self, wait_s: float) -> list[tuple[Any, ...]]:
        """The table's messages since the last call (``Outbox.take``)."""
        return self._outbox.take(wait_s)

    def want(self, key: str) -> None:
        """The organiser looks at game ``key``: its whole steps from now on
        (``SentFeed.want``, in the table's own trio run). Nothing once the table is over."""
        with self._lock:
            if self._token is not None and self._feed is not None:
                with suppress(trio.RunFinishedError):
                    self._token.run_sync_soon(self._feed.want, key)

    def stop(self) -> None:
        """Cancel the table in play, if any, and wait for its bots to stop."""
        with self._lock:
            self._stopped = True
            if self._cancel is not None and self._token is not None:
                with suppress(trio.RunFinishedError):
                    self._token.run_sync_soon(self._cancel.cancel)
        if self._thread is not None:
            self._thread.join(STOP_WAIT_S)

    def _play(self, order: TableOrder, setting: Setting, outbox: Outbox) -> None:
        try:
            bridge.run(self._table, order, setting, outbox)
        except BaseException as raised:  # the service replays the table's missing seatings
            outbox.send(("gone", f"{type(raised).__name__}: {raised}"))

    async def _table(self, order: TableOrder, setting: Setting, outbox: Outbox) -> None:
        def played(table_id: int, job: Job, seats: Sequence[int], game: FinishedGame) -> None:
            outbox.send(("game", table_id, job, tuple(seats), game))

        feed = SentFeed(outbox, on_demand=True)
        with trio.CancelScope() as scope:
            with self._lock:
                if self._stopped:
                    return
                self._cancel, self._token = scope, trio.lowlevel.current_trio_token()
                self._feed = feed
            try:
                await play_seatings(order, setting, played, feed)
                outbox.send(("done", ""))
            except BotPoolError as exc:
                outbox.send(("void", str(exc)))
