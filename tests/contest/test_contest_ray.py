"""``craits contest serve --ray``: the ladder's tables played by actors on a real Ray cluster.

The slow test runs ``ray start --head`` (``tests/ray/cluster``) and the service as a user would
type it, with two actors: three sandboxed versions play tables of three; the organiser watches
a game while an actor plays it (every card, asked of the actor) and a spectator the same game
(public events only), both checked against the recorded game; both actors' tables
are half played when one actor's process is killed with SIGKILL; the service replays that
table's missing seatings on a new actor and plays on. Every game is recorded once, by the
service, every table ends whole, and the versions' files reached the node through Ray's object
store (the node's cache holds each by its content hash). The fast tests check the node's side
alone: the cache by content hash (kept while its versions play there), and the refusal of a
node that cannot sandbox.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from craits.contest.archive import ArchiveLimits
from craits.contest.client import pack_directory
from craits.contest.organiser import new_organiser_token
from craits.contest.rayactor import CACHE_KEEP_S, ContestTables, cached_bots
from craits.contest.store import ContestStore, NewVersion
from craits.contest.uploads import tree_hash
from craits.contest.versions import VersionState
from craits.contest.web.signin import COOKIE
from tests.ray.cluster import RayCluster, session
from tests.waiting import until

from .ladder_tables import (
    SEATS,
    assert_each_seating_once,
    seatings,
    tables,
    tables_of_three,
    two_tables_half_played,
)
from .processes import serve
from .uploaded import bot_directory, wrapped
from .watched import check_watched, watch_a_game

ACTOR = b"ray::ContestTables"
"""How Ray names an actor's process (its title, in ``/proc/PID/cmdline``)."""


def _version(contest: Path, store: ContestStore, contestant: int, bot: str) -> str:
    """A rated version whose files are at ``bots/<content hash>``, as an upload stores them."""
    source = bot_directory(contest.parent / f"{bot}-source", wrapped(bot))
    files, size, digest = tree_hash(source)
    shutil.copytree(source, contest / "bots" / digest)
    version, _ = store.record_upload(contestant, NewVersion(digest, "bot.py", "python bot.py",
                                                            "python", files, size), 0.0)
    store.set_state(version.id, VersionState.RATED, 0.0)
    return digest


def _actors(cluster: RayCluster) -> list[int]:
    """The processes of the cluster's ``ContestTables`` actors."""
    found = []
    for pid in session(cluster.head.process.pid):
        try:
            if Path(f"/proc/{pid}/cmdline").read_bytes().startswith(ACTOR):
                found.append(pid)
        except OSError:
            continue
    return found


@pytest.fixture
def cluster() -> Iterator[tuple[RayCluster, Path]]:
    """A one-node cluster whose temporary directory (the node's cache) is the test's own.

    Directly in /tmp, as the cluster's own files are (``RayCluster``): the actors' referees make
    their Unix sockets in it, and a socket's path must fit in 108 bytes: one under the test's
    ``tmp_path`` took 100 in one pytest process and 110 in a pytest-xdist worker's directory,
    where no bot could dial and no game was played. Readable by all (as ``tmp_path`` is made),
    for the sandboxed bots' own user ids."""
    node_tmp = Path(tempfile.mkdtemp(prefix="craits-node-", dir="/tmp"))
    node_tmp.chmod(0o755)
    try:
        head = RayCluster(cpus=2, env={"TMPDIR": str(node_tmp)})
        try:
            yield head, node_tmp
        finally:
            head.stop()
    finally:
        shutil.rmtree(node_tmp, ignore_errors=True)


@pytest.mark.slow  # a real Ray cluster, sandboxed bots, a kill and a replay
def test_tables_on_ray_an_actor_killed_mid_table_loses_only_its_game(
        cluster: tuple[RayCluster, Path], tmp_path: Path) -> None:
    head, node_tmp = cluster
    contest = tmp_path / "cup"
    tables_of_three(contest)
    (contest / "bots").mkdir()
    store = ContestStore.open(contest / "contest.db")
    digests = {_version(contest, store, n, bot)
               for n, bot in ((1, "greedy"), (2, "lowcard"), (3, "random"))}

    organiser = {COOKIE: new_organiser_token(store)}
    store.close()

    with serve(contest, "--ray", head.address, "--workers", "2") as server:
        actors = until(lambda: (a := _actors(head)) and len(a) == 2 and a, 120, "two actors")
        watched = watch_a_game(server.url, organiser)

        until(lambda: two_tables_half_played(contest), 180, "two tables at once, both half played")
        interrupted = tables(contest, "playing")
        before = seatings(contest)
        os.kill(actors[0], signal.SIGKILL)
        until(lambda: interrupted <= tables(contest, "done"), 180,
              "the tables in play at the actor's death ended whole")
        assert server.process.poll() is None, "the service must outlive its actor"
        deaths = [line for line in server.stderr
                  if "its missing seatings go to a new worker" in line]
        assert deaths and "Ray table actor" in deaths[0], server.stderr
        assert actors[0] not in until(lambda: (a := _actors(head)) and len(a) == 2 and a, 60,
                                      "a new actor in the dead one's place")
        after = seatings(contest)
        assert set(before) <= set(after)
        server.process.terminate()  # as Ctrl-C, also with Ray's SIGTERM handler (-6 once)
        assert server.process.wait(timeout=60) == 130, server.stderr[-5:]

    assert_each_seating_once(contest)
    check_watched(contest, SEATS, watched)
    cache = node_tmp / f"craits-bots-{os.getuid()}"
    assert {p.name for p in cache.iterdir() if not p.name.startswith(".")} == digests
    assert all(tree_hash(cache / d)[2] == d for d in digests)


def test_the_node_cache_keeps_each_version_by_its_checked_content_hash_while_it_plays(
        tmp_path: Path) -> None:
    source = bot_directory(tmp_path / "bot", wrapped("random"))
    (source / "__pycache__").mkdir()  # a cache is part of a stored tree: shipped too
    (source / "__pycache__" / "bot.pyc").write_bytes(b"\x00compiled")
    digest = tree_hash(source)[2]
    packed = pack_directory(source, skipped=frozenset())
    fetched: list[str] = []

    def fetch() -> bytes:
        fetched.append(digest)
        return packed

    root = tmp_path / "cache"
    root.mkdir()
    stale = root / ("f" * 64)  # a version last seated long ago
    stale.mkdir()
    os.utime(stale, (0.0, 0.0))
    now = 1_900_000_000.0
    found = cached_bots(root, {digest: fetch}, ArchiveLimits(), now)[digest]
    assert found == root / digest and tree_hash(found)[2] == digest
    assert not stale.exists()  # not seated here for over CACHE_KEEP_S
    later = now + CACHE_KEEP_S - 1
    assert cached_bots(root, {digest: fetch}, ArchiveLimits(), later) == {digest: found}
    assert fetched == [digest]  # fetched once, then kept
    with pytest.raises(RuntimeError, match="do not have its content hash"):
        cached_bots(root, {"0" * 64: lambda: pack_directory(source)}, ArchiveLimits(), later)
    assert sorted(p.name for p in root.iterdir()) == [".lock", digest]  # nothing half made
    cached_bots(root, {}, ArchiveLimits(), later + CACHE_KEEP_S + 1)
    assert sorted(p.name for p in root.iterdir()) == [".lock"]  # no longer seated: removed


def test_a_node_without_bubblewrap_is_refused(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    tables = ContestTables(ArchiveLimits())
    assert tables.ready() is None  # control: this machine sandboxes (CI installs bubblewrap)
    monkeypatch.setenv("PATH", str(tmp_path))  # a node with none of the sandbox's tools
    refused = tables.ready()
    assert refused is not None and "cannot sandbox the contestants' bots" in refused
    assert "bwrap (Debian package bubblewrap)" in refused


def test_a_node_whose_temporary_directory_is_too_deep_for_the_referees_sockets_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The referee's Unix sockets (the sandboxed bots' only way to it) go under the node's
    temporary directory: one so deep that their paths pass 107 bytes is refused before a
    table, saying why and what to do, where the referee's own error would stop every table in
    the node's log. The control: ``/tmp``."""
    tables = ContestTables(ArchiveLimits())
    monkeypatch.setattr(tempfile, "tempdir", "/tmp")
    assert tables.ready() is None
    deep = tmp_path / ("d" * 100)
    deep.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(deep))
    refused = tables.ready()
    assert refused is not None and f"a referee's Unix socket under {deep}" in refused
    assert re.search(r"its path has \d+ bytes, more than the 107 .*set TMPDIR", refused)
