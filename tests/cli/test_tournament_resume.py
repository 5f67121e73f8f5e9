"""``craits tournament resume``: a stopped tournament goes on as it started, or says why not.

Real processes throughout: ``craits`` runs as a user would start it, Ctrl-C is a real SIGINT, and
the bots are real processes started by the referee.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from craits.cli.database import DEFAULT_DB
from craits.cli.tournament_play import resume_command
from craits.tournament.store.database import Store
from craits.tournament.store.game_records import LoggedFault
from craits.tournament.store.record_codec import decode

from .helpers import TINY, Result, Runner, done_games

pytestmark = pytest.mark.slow  # real tournaments, stopped and resumed

MY_BOT = "from craits_bots.greedy import GreedyBot as MyBot\n"
"""A bot module beside the configuration: importable only from the directory it is in."""

CUP = """
name = "relative"
seed = 9
table_size = 2
deal_sets = 6
concurrency = 1
[rules]
short_game = true
[[bots]]
name = "mine"
command = "python3 -m craits_sdk run mybot:MyBot"
dir = "."  # the tournament's directory: a bot given no dir gets an empty one
[[bots]]
name = "lowcard"
"""
GAMES = 12  # one meeting x 2 rotations x 6 deal sets

Interrupt = Callable[..., Result]


def start_and_interrupt(tmp_path: Path, interrupted: Interrupt) -> tuple[Path, Path, str]:
    """Start the cup from ``tmp_path/a``, stop it with Ctrl-C after two games: (a, db, id)."""
    home = tmp_path / "a"
    home.mkdir()
    (home / "mybot.py").write_text(MY_BOT)
    (home / "cup.toml").write_text(CUP)
    db = tmp_path / "results.sqlite"
    stopped = interrupted("tournament", "run", "cup.toml", "--db", str(db), "--quiet",
                          db=db, games=2, cwd=home)
    assert stopped.status == 130, stopped.err
    with sqlite3.connect(db) as con:
        [(tid,)] = con.execute("SELECT id FROM tournaments").fetchall()
    assert f"resume with `craits tournament resume {tid} --db {db}`" in stopped.err
    return home, db, str(tid)


def faults(db: Path) -> list[LoggedFault]:
    """Every strike, forfeit or fault any recorded game logged."""
    found: list[LoggedFault] = []
    with Store.open(db, mode="read") as store:
        [info] = store.tournaments()
        for result in store.results(info.id):
            row = store.game_record(info.id, result.game_index)
            assert row is not None and row.record is not None
            found += decode(row.record).faults
    return found


def test_resume_from_another_directory_runs_bots_where_the_tournament_started(
    tmp_path: Path, cli_process: Runner, interrupted: Interrupt
) -> None:
    _, db, tid = start_and_interrupt(tmp_path, interrupted)
    elsewhere = tmp_path / "b"
    elsewhere.mkdir()
    resumed = cli_process("tournament", "resume", tid, "--db", str(db), "--json", cwd=elsewhere)
    assert resumed.status == 0, resumed.err
    assert resumed.json()["games"] == GAMES
    assert faults(db) == []


def test_resume_refuses_when_the_starting_directory_is_gone(
    tmp_path: Path, cli_process: Runner, interrupted: Interrupt
) -> None:
    home, db, tid = start_and_interrupt(tmp_path, interrupted)
    shutil.rmtree(home)
    refused = cli_process("tournament", "resume", tid, "--db", str(db), cwd=tmp_path)
    refused.assert_usage_error(f"was started in {home}, which no longer exists")
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT status FROM tournaments").fetchone() == ("paused",)


def test_a_resume_that_cannot_listen_keeps_the_tournament_paused_and_says_what_to_change(
    tmp_path: Path, cli_process: Runner, interrupted: Interrupt
) -> None:
    home, db, tid = start_and_interrupt(tmp_path, interrupted)
    played = done_games(db)  # two, or three when one more ended as Ctrl-C arrived
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        refused = cli_process("tournament", "resume", tid, "--db", str(db), "--port", str(port),
                              cwd=home)
    assert refused.status == 2 and refused.err.splitlines()[1:] == [
        f"craits: error: cannot listen on 127.0.0.1:{port}: Address already in use; tournament"
        f" {tid} is paused: resume it on another --port (or 0):"
        f" `craits tournament resume {tid} --db {db}`"]  # below the "resuming ..." header
    refused = cli_process("tournament", "resume", tid, "--db", str(db), "--host", "192.0.2.1",
                          cwd=home)
    assert refused.status == 2 and refused.err.splitlines()[1:] == [
        "craits: error: cannot listen on 192.0.2.1:0: Cannot assign requested address;"
        f" tournament {tid} is paused: resume it with another --host"]
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT status FROM tournaments").fetchone() == ("paused",)
    assert done_games(db) == played  # the refused resumes played nothing


def test_the_resume_hint_names_the_database_and_address_unless_they_are_the_defaults() -> None:
    plain = argparse.Namespace(host="127.0.0.1", port=0)
    assert resume_command("abc", DEFAULT_DB, plain) == "craits tournament resume abc"
    assert resume_command("abc", Path("my results/t.sqlite"), plain) == (
        "craits tournament resume abc --db 'my results/t.sqlite'")
    remote = argparse.Namespace(host="0.0.0.0", port=50999)  # remote bots were told this one
    assert resume_command("abc", DEFAULT_DB, remote) == (
        "craits tournament resume abc --host 0.0.0.0 --port 50999")




def test_resuming_a_finished_tournament_shows_its_standings(tmp_path: Path,
                                                          cli_process: Runner) -> None:
    (tmp_path / "tiny.toml").write_text(TINY)
    db = str(tmp_path / "t.sqlite")
    ran = cli_process("tournament", "run", "tiny.toml", "--db", db, "--json", cwd=tmp_path)
    assert ran.status == 0, ran.err
    tid = ran.json()["tournament"]
    resumed = cli_process("tournament", "resume", tid, "--db", db)
    assert resumed.status == 0, resumed.err
    assert resumed.err == (f"tournament {tid} is already finished (2 games played): "
                           "nothing to resume\n")
    shown = cli_process("tournament", "show", tid, "--db", db)
    assert shown.out.endswith(resumed.out)
    with sqlite3.connect(db) as con:  # as a run killed right after its last game leaves it
        con.execute("UPDATE tournaments SET status='running'")
    con.close()
    as_json = cli_process("tournament", "resume", tid, "--db", db, "--json")
    assert as_json.status == 0 and as_json.err == ""
    assert as_json.json() == ran.json()
    listed = cli_process("tournament", "list", "--db", db, "--json").json()
    assert listed["tournaments"][0]["status"] == "finished"


LONG = TINY.replace("deal_sets = 1", "deal_sets = 200\nconcurrency = 1")
"""400 games, one at a time: far more than the test waits for (it stops the run itself), so
the first runner is still running however slowly the second one starts."""


def test_a_second_runner_of_a_running_tournament_is_refused(
    tmp_path: Path, cli_process: Runner
) -> None:
    """Refused by the database's own path and through a link to it (one running tournament,
    asked twice)."""
    (tmp_path / "long.toml").write_text(LONG)
    db = tmp_path / "t.sqlite"
    (tmp_path / "elsewhere").mkdir()
    link = tmp_path / "elsewhere" / "link.sqlite"
    link.symlink_to(db)
    first = subprocess.Popen([sys.executable, "-m", "craits", "tournament", "run", "long.toml",
                              "--db", str(db), "--json"], cwd=tmp_path, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while done_games(db) < 1:
        assert first.poll() is None and time.monotonic() < deadline, first
        time.sleep(0.05)
    with sqlite3.connect(db) as con:
        [(tid,)] = con.execute("SELECT id FROM tournaments").fetchall()
    con.close()
    for other in (db, link):  # the second runner's path to the same database
        second = cli_process("tournament", "resume", tid, "--db", str(other))
        assert first.poll() is None, "the first runner ended before the second one was refused"
        second.assert_usage_error(f"tournament {tid} is being run by another process "
                                  f"(pid {first.pid})")
    first.send_signal(signal.SIGINT)
    _, err = first.communicate(timeout=120)
    assert first.returncode == 130, err
    with contextlib.closing(sqlite3.connect(db)) as con:
        played, distinct = con.execute("SELECT COUNT(*), COUNT(DISTINCT job_id) FROM games"
                                       ).fetchone()
    assert played == distinct == done_games(db) >= 1  # the refused runners changed nothing
