"""Ladder tables in worker processes, with real processes: ``craits contest serve --workers 2``
plays two tables at once; a worker killed with SIGKILL in the middle of a table loses only the
game it was playing (a new worker replays the table's missing seatings, the service plays on);
the service killed with SIGKILL takes its workers with it (none plays on for nobody); a new
``serve`` (in-process this time, ``--workers 0``) ends the tables left open. Every seating of
every table is recorded exactly once."""

from __future__ import annotations

import json
import os
import re
import signal
from pathlib import Path

import httpx
import pytest
import trio

from craits.contest.dealsets import Entrant
from craits.contest.live import LiveGames
from craits.contest.service import open_contest
from craits.contest.store import ContestStore
from craits.contest.tableworker import TableOrder, WorkerSetup
from craits.contest.tableworker_pool import TableWorker
from craits.contest.validation import ContestRun
from craits.contest.versions import VersionState
from craits.dealkey import DealKey
from tests.waiting import until

from .ladder_tables import (
    assert_each_seating_once,
    read,
    seatings,
    tables,
    tables_of_three,
    two_tables_half_played,
)
from .processes import Server, serve
from .server import make_contest
from .uploaded import NEVER_CONNECTS, add_version, bot_directory, wrapped

pytestmark = pytest.mark.slow



def _workers(server: Server) -> list[int]:
    """The service's table worker processes: its children running ``tableworker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == server.process.pid and b"craits.contest.tableworker" in cmdline:
            found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _has_children(pid: int) -> bool:
    """Whether process ``pid`` has children now (a table worker's are its game's bots)."""
    try:
        return bool(Path(f"/proc/{pid}/task/{pid}/children").read_text().split())
    except OSError:
        return False


def _watch_one(url: str) -> None:
    """A game a worker plays is live on the service's pages: its public steps, relayed from
    the worker, arrive on its stream, the seats named as on the board."""
    keys = until(lambda: re.findall(r'href="/live/(\d+-\d+)"', httpx.get(f"{url}/live").text),
                 30, "a live game listed")
    with httpx.stream("GET", f"{url}/live/{keys[0]}/events", timeout=30) as stream:
        lines = stream.iter_lines()
        assert next(line for line in lines if line.startswith("event:")) == "event: steps"
        data = json.loads(next(line for line in lines if line.startswith("data:"))[5:])
    assert data and all({"i", "events", "lines"} <= set(step) for step in data)
    assert re.search(r"\b(ann|bob|cid) v1\b", " ".join(" ".join(s["lines"]) for s in data))


def test_a_killed_worker_loses_only_its_game_and_a_killed_service_ends_its_workers(
        tmp_path: Path) -> None:
    contest = tmp_path / "cup"
    tables_of_three(contest)
    store = ContestStore.open(contest / "contest.db")
    for contestant, bot in ((1, "greedy"), (2, "lowcard"), (3, "random")):
        version = add_version(contest, store, contestant, wrapped(bot))
        store.set_state(version.id, VersionState.RATED, 0.0)
    store.close()

    with serve(contest, "--workers", "2") as server:
        workers = until(lambda: (w := _workers(server)) and len(w) == 2 and w, 30,
                        "two table workers", every=0.2)
        _watch_one(server.url)

        until(lambda: two_tables_half_played(contest), 120,
              "two tables at once, both half played", every=0.2)
        interrupted = tables(contest, "playing")
        before = seatings(contest)
        # Killed while its bots run: in the middle of a game, not between tables (a worker
        # killed idle would be found dead only at its next table, after the checks below).
        victim = until(lambda: next((pid for pid in workers if _has_children(pid)), None), 30,
                       "a worker with its bots running", every=0.01)
        os.kill(victim, signal.SIGKILL)
        until(lambda: interrupted <= tables(contest, "done"), 120,
              "the tables in play at the worker's death ended whole", every=0.2)
        assert server.process.poll() is None, "the service must outlive its worker"
        until(lambda: any("its missing seatings go to a new worker" in line
                          for line in server.stderr), 30, "the worker's death logged")
        replacement = until(lambda: (w := _workers(server)) and len(w) == 2 and w, 30,
                            "a new worker in the dead one's place", every=0.2)
        assert victim not in replacement
        assert set(before) <= set(seatings(contest))

        done = len(tables(contest, "done"))

        def fresh_table() -> set[int]:
            """Tables in play with no game recorded yet (all three seatings to play)."""
            recorded = {t for (t,) in read(contest, "SELECT table_id FROM games")}
            return tables(contest, "playing") - recorded

        until(lambda: len(tables(contest, "done")) > done and fresh_table(), 120,
              "the ladder plays on, a table just started", every=0.2)
        left_open = tables(contest, "playing")
        fresh = fresh_table()
        server.kill()
        until(lambda: not any(_alive(pid) for pid in replacement), 30,
              "the killed service's workers ended", every=0.2)
        # A worker playing on for nobody would record the fresh table's other seatings; one
        # ending with its service records at most the game that was ending at the kill.
        for table in fresh:
            assert len(read(contest, f"SELECT id FROM games WHERE table_id = {table}")) <= 1

    with serve(contest, "--workers", "0"):
        until(lambda: left_open <= tables(contest, "done"), 180,
              "the tables the killed service left open ended whole", every=0.2)

    assert_each_seating_once(contest)


def test_a_version_that_cannot_start_voids_its_table_in_the_worker(tmp_path: Path) -> None:
    """The worker says why the table cannot be played, naming the version (what the ladder
    suspends it by), and plays the next table it is sent."""
    contest = tmp_path / "cup"
    make_contest(contest)
    served = open_contest(contest)
    run = ContestRun(contest, served.config, served.store)
    good = Entrant("v1", bot_directory(tmp_path / "good", wrapped("random")), "python bot.py")
    broken = Entrant("v2", bot_directory(tmp_path / "broken", NEVER_CONNECTS), "python bot.py")

    other = Entrant("v3", bot_directory(tmp_path / "other", wrapped("lowcard")), "python bot.py")

    def order(table: int, second: Entrant, seatings: tuple[int, ...]) -> TableOrder:
        return TableOrder(table, (good, second), (1, int(second.label[1:])),
                          ("ann v1", "bob v1"), DealKey.fresh(), seatings,
                          run.logs("tables", str(table)))

    async def main() -> list[str | None]:
        worker = TableWorker(1, WorkerSetup(contest / "contest.db", run.setting()))
        try:
            return [await worker.play(order(1, broken, (0, 1)), LiveGames()),
                    # its seatings recorded already: the bots start, and nothing is played
                    await worker.play(order(2, other, ()), LiveGames())]
        finally:
            await worker.close()

    void, done = trio.run(main)
    served.store.close()
    assert void is not None and "'v2'" in void and "exited with status 3" in void, void
    assert done is None
