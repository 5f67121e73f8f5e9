"""Tournaments on a real Ray cluster of two nodes on this machine: the same games as at home.

A head (``ray start --head``) and a second node joined to it (``ray start --address``), two CPUs
each, and ``craits tournament run --ray`` as a user would type it, with one worker actor on each
node. The tournament mixes a bot process (greedy: the actor's own referee, over gRPC) with two
in-process bots, one of them a module kept only in the tournament's directory (so the actors can
import it only from the copy Ray shipped them), which notes each game it starts. For the same
seed every game (events, moves, totals) equals a local run's; when the second node dies mid-run,
its games in flight are played again on the head, each recorded once, with the same results. A
run killed (SIGKILL) or stopped (SIGTERM: paused, as without Ray) resumes on the cluster.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from craits.report.stored import iter_games
from craits.tournament.store.database import Store
from tests.waiting import until

from .cluster import RayCluster, RayNode

pytestmark = pytest.mark.slow  # a real Ray cluster of several nodes

CONFIG = """
name = "ray-cup"
seed = 23
table_size = 3
deal_sets = {deal_sets}
concurrency = 2

[rules]
short_game = true

[time]
move_ms = 10000
bank_ms = 60000

[[bots]]
name = "greedy"

[[bots]]
name = "lowcard"
python = "counted:CountedLowCard"

[[bots]]
name = "random"
python = "craits_bots.random:RandomBot"
"""
COUNTED = """
import ray
from craits_bots.lowcard import LowCardBot

STARTS = {starts!r}


class CountedLowCard(LowCardBot):
    \"\"\"LowCardBot, noting each game it starts, on which node, and where this module was
    imported from.\"\"\"

    def on_game_start(self, game):
        node = ray.get_runtime_context().get_node_id() if ray.is_initialized() else "local"
        with open(STARTS, "a") as out:
            out.write(f"{{game.game_id}} {{node}} {{__file__}}\\n")
        super().on_game_start(game)
"""
HELD_BOT = """
import fcntl
import time
from pathlib import Path

from craits_bots.greedy import GreedyBot

FREE = 2
HOLD = Path({hold!r})
HELD = Path({held!r})
STARTED = Path({started!r})


class Held(GreedyBot):
    \"\"\"Greedy, except that while the test holds the games (its file HOLD exists) every game
    after the first FREE this bot starts (counted over its processes) waits at its first
    decision, saying so in HELD: those games cannot end before the test lets them.\"\"\"

    held = frozenset()

    def on_game_start(self, game):
        with STARTED.open("a+") as started:
            fcntl.flock(started, fcntl.LOCK_EX)
            started.seek(0)
            if len(started.readlines()) >= FREE:
                self.held = self.held | {{game.game_id}}
            started.write(game.game_id + "\\n")
        super().on_game_start(game)

    def decide(self, view):
        while view.game.game_id in self.held and HOLD.exists():
            HELD.touch()
            time.sleep(0.05)
        return super().decide(view)
"""
HELD_CONFIG = (CONFIG.replace("concurrency = 2", 'concurrency = 1\ntrust = "trusted"')
               .replace('name = "greedy"', 'name = "held"\n'
                        'command = "python3 -m craits_sdk run heldbot:Held"'))
"""The tournament with greedy's moves played by a process the test can hold: one table a worker,
so that a held game never stalls another at that worker's one process of the bot; trusted (no
sandbox), so that the process sees the test's files."""
CRAITS = [sys.executable, "-m", "craits"]
RAY_SIGTERM = [sys.executable, "-c", (
    "import sys\n"
    "from craits.tournament.run import ray_pool\n"
    "ray_pool.keep_sigterm = lambda handler: None\n"
    "from craits.cli.main import main\n"
    "sys.exit(main())\n")]
"""``craits`` without ``ray_pool.join``'s fix: the SIGTERM handler Ray installs stays."""
RUN_S = 300


@pytest.fixture(scope="module")
def cluster() -> Iterator[RayCluster]:
    """The head node, for the whole module; always stopped."""
    head = RayCluster(cpus=2)
    try:
        yield head
    finally:
        head.stop()


@pytest.fixture
def second_node(cluster: RayCluster) -> Iterator[RayNode]:
    """A second node for one test; always stopped (or already killed by the test)."""
    node = cluster.add_node(cpus=2)
    try:
        yield node
    finally:
        node.stop()
        cluster.nodes.remove(node)


def _tournament(where: Path, deal_sets: int) -> Path:
    """The tournament's directory, with its file and its own bot module."""
    where.mkdir()
    (where / "counted.py").write_text(COUNTED.format(starts=str(where / "starts.log")))
    (where / "cup.toml").write_text(CONFIG.format(deal_sets=deal_sets))
    return where


def _command(where: Path, *extra: str, craits: list[str] = CRAITS) -> list[str]:
    return [*craits, "tournament", "run", "cup.toml", "--db", "cup.sqlite", "--json", *extra]


def _finished(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == 0, done.stderr
    standings: dict[str, Any] = json.loads(done.stdout)
    return standings


def _games(db: Path) -> list[tuple[Any, ...]]:
    """Every game's result, events, moves (minus their timing) and faults, as stored."""
    store = Store.open(db, mode="read")
    (info,) = store.tournaments()
    return [
        (g.game_index, g.result.totals, g.result.places, g.result.strikes, g.events,
         [(m.seat, str(m.move), m.decision, m.defaulted) for m in g.decisions], g.faults)
        for g in iter_games(store, info.id)
    ]


def _starts(where: Path) -> list[tuple[str, str, str]]:
    """(game id, node id, module file) for each game the counted bot started."""
    log = where / "starts.log"
    lines = log.read_text().splitlines() if log.exists() else []
    return [(game, node, module) for game, node, module in (line.split(" ", 2) for line in lines)]


def _done_games(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as con:
            return int(con.execute("SELECT COUNT(*) FROM jobs WHERE status='done'").fetchone()[0])
    except sqlite3.OperationalError:
        return 0  # not created yet


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An ordinary run of the tournament (two deal sets) in one process, for comparison."""
    where = _tournament(tmp_path_factory.mktemp("local") / "cup", deal_sets=2)
    _finished(subprocess.run(_command(where, "--workers", "1"), cwd=where, capture_output=True,
                             text=True, timeout=RUN_S))
    return where


def test_two_nodes_play_the_same_games_as_one_process(
    cluster: RayCluster, second_node: RayNode, local: Path, tmp_path: Path,
) -> None:
    where = _tournament(tmp_path / "cup", deal_sets=2)
    standings = _finished(subprocess.run(
        _command(where, "--ray", cluster.address, "--workers", "2"), cwd=where,
        capture_output=True, text=True, timeout=RUN_S))

    assert standings["games"] == 6
    games = _games(where / "cup.sqlite")
    assert len(games) == 6 and len(games[0][5]) > 20  # moves
    assert games == _games(local / "cup.sqlite")
    assert len({node for _, node, _ in _starts(where)}) == 2  # both nodes played
    shipped = {Path(module).parent for _, _, module in _starts(where)}
    assert len(shipped) == 1 and where not in shipped  # Ray's copy of the directory ...
    copy = shipped.pop()
    assert (copy / "cup.toml").read_text() == (where / "cup.toml").read_text()
    assert not (copy / "cup.sqlite").exists() and not (copy / "logs").exists()  # ... but
    assert (where / "cup.sqlite").exists() and (where / "logs").is_dir()  # the store and logs


def test_a_node_that_dies_loses_only_its_games_in_flight(
    cluster: RayCluster, second_node: RayNode, tmp_path: Path,
) -> None:
    deal_sets = 4
    where = _tournament(tmp_path / "cup", deal_sets=deal_sets)
    local = _tournament(tmp_path / "local", deal_sets=deal_sets)
    reference = subprocess.Popen(_command(local, "--workers", "1"), cwd=local, text=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    run = subprocess.Popen(_command(where, "--ray", cluster.address, "--workers", "2"),
                           cwd=where, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + RUN_S
        while (_done_games(where / "cup.sqlite") < 3  # 9 left: both workers are playing
               or len({node for _, node, _ in _starts(where)}) < 2):  # on both nodes
            assert run.poll() is None, run.communicate()[1]
            assert time.monotonic() < deadline, "the run made no progress"
            time.sleep(0.05)
        second_node.kill()
        out, err = run.communicate(timeout=RUN_S)
        standings = _finished(subprocess.CompletedProcess(run.args, run.returncode, out, err))
        out, err = reference.communicate(timeout=RUN_S)
        local_standings = _finished(subprocess.CompletedProcess(
            reference.args, reference.returncode, out, err))
    finally:
        for process in (run, reference):
            if process.poll() is None:
                process.kill()
                process.wait()

    games = 3 * deal_sets
    assert standings["games"] == games
    assert _games(where / "cup.sqlite") == _games(local / "cup.sqlite")
    assert standings["rows"] == local_standings["rows"]
    starts = _starts(where)
    assert len({game for game, _, _ in starts}) == games  # every game was played ...
    again = [game for game, _, _ in starts if [g for g, _, _ in starts].count(game) > 1]
    assert again  # ... those in flight on the dead node twice: there, then on the head
    assert len({node for game, node, _ in starts if game in again}) == 2
    with sqlite3.connect(where / "cup.sqlite") as con:
        recorded, distinct = con.execute(
            "SELECT COUNT(*), COUNT(DISTINCT job_id) FROM games").fetchone()
    assert recorded == distinct == games


def test_a_killed_run_resumes_on_the_cluster_with_the_same_games(
    cluster: RayCluster, local: Path, tmp_path: Path,
) -> None:
    """kill -9 of the run process: Ray ends its actors (the head's two CPUs are free again for
    the resumed run's two), and a resume plays the rest."""
    where = _tournament(tmp_path / "cup", deal_sets=2)
    run = subprocess.Popen(_command(where, "--ray", cluster.address, "--workers", "2"),
                           cwd=where, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + RUN_S
        while _done_games(where / "cup.sqlite") < 2:
            assert run.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "the run made no progress"
            time.sleep(0.05)
    finally:
        run.kill()
        run.wait()
    assert _done_games(where / "cup.sqlite") < 6
    (tournament,) = Store.open(where / "cup.sqlite", mode="read").tournaments()
    standings = _finished(subprocess.run(
        [*CRAITS, "tournament", "resume", tournament.id, "--db", "cup.sqlite", "--json",
         "--ray", cluster.address, "--workers", "2"],
        cwd=where, capture_output=True, text=True, timeout=RUN_S))

    assert standings["games"] == 6
    assert _games(where / "cup.sqlite") == _games(local / "cup.sqlite")


@pytest.mark.parametrize("fixed", [True, False], ids=["python-handler", "control-ray-handler"])
def test_a_terminated_run_pauses_and_resumes_each_game_once(
    cluster: RayCluster, tmp_path: Path, fixed: bool,
) -> None:
    """``kill`` (SIGTERM) of a run on the cluster stops it as without Ray: status 130, the
    tournament paused, Python's ``interrupted`` and no stack from Ray's handler; a resume plays
    the games left, each recorded once. Two games end and the others wait at their first move
    while the test holds them, so games are surely left when the signal comes. The control runs
    ``craits`` with ``ray_pool.keep_sigterm`` undone: Ray's handler takes the signal and dumps
    its stack (and aborts the run, status -6, when stopping takes over 3 s)."""
    hold, held = tmp_path / "hold", tmp_path / "held"
    where = _tournament(tmp_path / "cup", deal_sets=2)
    (where / "cup.toml").write_text(HELD_CONFIG.format(deal_sets=2))
    (where / "heldbot.py").write_text(HELD_BOT.format(
        hold=str(hold), held=str(held), started=str(tmp_path / "started")))
    hold.touch()
    log = tmp_path / "run.stderr"
    craits = CRAITS if fixed else RAY_SIGTERM
    with log.open("w") as err:
        run = subprocess.Popen(
            _command(where, "--ray", cluster.address, "--workers", "2", craits=craits),
            cwd=where, stdout=subprocess.DEVNULL, stderr=err)
    try:
        until(lambda: run.poll() is not None or (
            held.exists() and _done_games(where / "cup.sqlite") == 2),
            RUN_S, "no game held after two ended", every=0.05)
        assert run.poll() is None, log.read_text()[-2000:]
        run.send_signal(signal.SIGTERM)
        status = run.wait(timeout=RUN_S)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    stderr = log.read_text()
    if not fixed:
        assert "SIGTERM received" in stderr, (status, stderr[-2000:])
        return
    assert status == 130, stderr[-2000:]
    assert "SIGTERM received" not in stderr, stderr[-2000:]
    assert _done_games(where / "cup.sqlite") == 2
    (tournament,) = Store.open(where / "cup.sqlite", mode="read").tournaments()
    assert tournament.status == "paused"
    assert f"interrupted; resume with `craits tournament resume {tournament.id}" in stderr
    hold.unlink()
    standings = _finished(subprocess.run(
        [*CRAITS, "tournament", "resume", tournament.id, "--db", "cup.sqlite", "--json",
         "--ray", cluster.address, "--workers", "2"],
        cwd=where, capture_output=True, text=True, timeout=RUN_S))

    assert standings["games"] == 6
    with sqlite3.connect(where / "cup.sqlite") as con:
        recorded, distinct = con.execute(
            "SELECT COUNT(*), COUNT(DISTINCT job_id) FROM games").fetchone()
    assert recorded == distinct == 6
