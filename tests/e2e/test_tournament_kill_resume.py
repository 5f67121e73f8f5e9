"""kill -9 in the middle of a real tournament, then resume: nothing lost, nothing twice.

Real OS processes throughout: the ``craits`` command, its embedded gRPC referee, and one process
per bot (with several workers: worker processes, each with its referee and bots, one of them in
process). The interrupted-and-resumed run must end with exactly the standings of an
uninterrupted run of the same configuration (the bundled bots are deterministic per game), and
a killed run's worker processes end with it.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.procfs import PARENT, pids_where

pytestmark = pytest.mark.slow  # real tournaments, killed with kill -9 and resumed

CONFIG = """
name = "kill-test"
seed = 77
table_size = 2
deal_sets = 2
concurrency = 2

[rules]
short_game = true

[time]
move_ms = 10000
bank_ms = 60000

[[bots]]
name = "greedy"
{greedy}
[[bots]]
name = "random"

[[bots]]
name = "random-2"
bundled = "random"
"""
GAMES = 3 * 2 * 2  # C(3,2) meetings x 2 rotations x 2 deal sets
CRAITS = [sys.executable, "-m", "craits"]


def _craits(*args: str) -> dict[str, Any]:
    done = subprocess.run([*CRAITS, *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def _done_games(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as con:
            return int(con.execute("SELECT COUNT(*) FROM jobs WHERE status='done'").fetchone()[0])
    except sqlite3.OperationalError:
        return 0  # schema not created yet


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    return pids_where(PARENT, pid)


def _kill_after(db: Path, config: Path, games: int, workers: int) -> list[int]:
    """Start the run, kill it (SIGKILL) once ``games`` are recorded; the processes it had
    started (its workers or, with one worker, its bots), for ``_ended``."""
    proc = subprocess.Popen([*CRAITS, "tournament", "run", str(config), "--db", str(db),
                             "--quiet", "--workers", str(workers)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 240
    while _done_games(db) < games:
        assert proc.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline, "the run made no progress"
        time.sleep(0.05)
    children = _children(proc.pid)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    return children


def _ended(children: list[int]) -> None:
    """Wait until every process a killed run had started has ended: its workers with it, its
    bots once they stop re-dialling their dead referee (about 16 s, ``craits_sdk.client``),
    which the resume does not wait for: it starts bots of its own."""
    deadline = time.monotonic() + 240
    while any(Path(f"/proc/{pid}").exists() for pid in children):  # reaped by init once gone
        assert time.monotonic() < deadline, "a killed run's worker kept running"
        time.sleep(0.05)


def _comparable(standings: dict[str, Any]) -> list[tuple[Any, ...]]:
    keys = ("rank", "bot", "rating", "low", "high", "online_elo", "games", "mean_points", "wins")
    return [tuple(row[k] for k in keys) for row in standings["rows"]]


@pytest.fixture(scope="module")
def straight(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The standings of an uninterrupted run in one process (greedy as a bot process: the same
    games as in process)."""
    where = tmp_path_factory.mktemp("straight")
    config = where / "cup.toml"
    config.write_text(CONFIG.format(greedy=""))
    standings = _craits("tournament", "run", str(config), "--db", str(where / "a.sqlite"),
                        "--json", "--workers", "1")
    assert standings["games"] == GAMES
    return standings


@pytest.mark.parametrize(("workers", "greedy"), [
    (1, ""),
    (3, 'python = "craits_bots.greedy:GreedyBot"\n'),
])
def test_kill_9_then_resume_equals_uninterrupted_run(
    tmp_path: Path, straight: dict[str, Any], workers: int, greedy: str
) -> None:
    config = tmp_path / "cup.toml"
    config.write_text(CONFIG.format(greedy=greedy))

    db = tmp_path / "b.sqlite"
    children = _kill_after(db, config, games=3, workers=workers)
    assert 3 <= _done_games(db) < GAMES
    listed = _craits("tournament", "list", "--db", str(db), "--json")["tournaments"]
    assert len(listed) == 1 and listed[0]["status"] == "running"
    resumed = _craits("tournament", "resume", listed[0]["id"], "--db", str(db), "--json",
                      "--workers", str(workers))

    assert resumed["games"] == GAMES
    assert _comparable(resumed) == _comparable(straight)
    with sqlite3.connect(db) as con:
        games, distinct = con.execute(
            "SELECT COUNT(*), COUNT(DISTINCT job_id) FROM games").fetchone()
        statuses = dict(con.execute("SELECT status, COUNT(*) FROM jobs GROUP BY status"))
    assert games == distinct == GAMES
    assert statuses == {"done": GAMES}
    _ended(children)
