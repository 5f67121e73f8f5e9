"""How ``craits tournament run`` and ``resume`` stop short: a clear line saying what to do next,
and a tournament never left "running" with nothing running it."""

from __future__ import annotations

import json
import signal
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from craits.tournament.plan.config import config_from_dict
from craits.tournament.store.database import Store
from craits.tournament.store.game_records import FinishedGame

from .helpers import TINY, Result, Runner, done_games

pytestmark = pytest.mark.slow  # real tournaments, stopped and resumed


def statuses(db: Path) -> list[str]:
    """Every stored tournament's status, oldest first."""
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT status FROM tournaments ORDER BY created").fetchall()
    con.close()
    return [status for (status,) in rows]


def test_run_refuses_a_log_directory_it_cannot_make_before_creating_anything(
    cli_process: Runner, tmp_path: Path
) -> None:
    cup = tmp_path / "tiny.toml"
    cup.write_text(TINY)
    logs = tmp_path / "logs"
    logs.write_text("not a directory")
    db = tmp_path / "t.sqlite"
    cli_process("tournament", "run", str(cup), "--db", str(db)).assert_usage_error(
        f"cannot create the bot log directory {logs}: a file is in the way")
    assert statuses(db) == []


def test_resume_refuses_a_log_directory_it_cannot_make_and_changes_nothing(
    cli_process: Runner, tmp_path: Path
) -> None:
    db = tmp_path / "t.sqlite"
    with Store.open(db) as store:
        store.create_tournament(config_from_dict(
            {"table_size": 2, "bots": [{"name": "greedy"}, {"name": "lowcard"}]}), "t1")
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "t1").write_text("not a directory")
    cli_process("tournament", "resume", "t1", "--db", str(db)).assert_usage_error(
        f"cannot create the bot log directory {tmp_path / 'logs' / 't1'}: a file is in the way")
    assert statuses(db) == ["created"]
    listed = json.loads(cli_process("tournament", "list", "--db", str(db), "--json").out)
    assert listed["tournaments"][0]["done"] == 0


BROKEN = TINY.replace('name = "greedy"', 'name = "mine"\ncommand = "python3 missing.py"')


def test_a_new_tournament_whose_bot_cannot_start_is_not_kept(cli_process: Runner,
                                                            tmp_path: Path) -> None:
    cup = tmp_path / "cup.toml"
    cup.write_text(BROKEN)
    db = tmp_path / "t.sqlite"
    failed = cli_process("tournament", "run", str(cup), "--db", str(db), "--json", cwd=tmp_path)
    failed.assert_usage_error(
        "bot 'mine' failed to start: it exited before connecting: bot process exited with "
        "status 2 (its stderr is in", "mine.stderr.log",
        f"fix the bot or its [[bots]] entry in {cup}, then run the tournament again "
        "(no tournament was kept)")
    assert "resume" not in failed.err
    assert statuses(db) == []


def test_resume_with_a_bot_that_cannot_start_says_what_to_fix(cli_process: Runner,
                                                             tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    with Store.open(db) as store:
        store.create_tournament(config_from_dict({"table_size": 2, "bots": [
            {"name": "mine", "command": "python3 missing.py"}, {"name": "lowcard"}]}), "t1",
            workdir=tmp_path)
    failed = cli_process("tournament", "resume", "t1", "--db", str(db), "--json")
    failed.assert_usage_error(
        "bot 'mine' failed to start", f"tournament t1 is paused, and its bots start as stored, "
        f"in {tmp_path}: fix what the bot needs there, then `craits tournament resume t1 --db "
        f"{db}`")
    assert statuses(db) == ["paused"]


CUP = TINY.replace("deal_sets = 1", "deal_sets = 6")


def test_sigterm_pauses_a_tournament_like_ctrl_c_and_resume_finishes_it(
    tmp_path: Path, cli_process: Runner, interrupted: Callable[..., Result]
) -> None:
    """``kill`` (SIGTERM) used to leave the tournament 'running' and its bots orphaned."""
    (tmp_path / "cup.toml").write_text(CUP)
    db = tmp_path / "t.sqlite"
    stopped = interrupted("tournament", "run", "cup.toml", "--db", str(db), "--quiet",
                          db=db, games=2, cwd=tmp_path, sig=signal.SIGTERM)
    assert stopped.status == 130, stopped.err
    assert "Traceback" not in stopped.err and "resume with" in stopped.err
    with sqlite3.connect(db) as con:
        [(tid, status)] = con.execute("SELECT id, status FROM tournaments").fetchall()
    assert status == "paused"
    resumed = cli_process("tournament", "resume", tid, "--db", str(db), "--json", cwd=tmp_path)
    assert resumed.status == 0, resumed.err
    assert json.loads(resumed.out)["games"] == 12
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*), COUNT(DISTINCT job_id) FROM games").fetchone() == (
            12, 12)


CRASHER = """
import os
from craits_bots.random import RandomBot

class Crasher(RandomBot):
    '''Dies at its third decision, in every process the tournament starts for it.'''
    decided = 0

    def decide(self, view):
        Crasher.decided += 1
        if Crasher.decided == 3:
            os._exit(1)
        return super().decide(view)
"""
CRASH_CUP = """
name = "crashing"
seed = 3
table_size = 2
deal_sets = 6
concurrency = 1
[rules]
short_game = true
[[bots]]
name = "crasher"
command = "python3 -m craits_sdk run crasher:Crasher"
dir = "."  # the tournament's directory: a bot given no dir gets an empty one
[[bots]]
name = "lowcard"
"""


def test_a_bot_that_keeps_dying_pauses_the_tournament_instead_of_forfeiting_every_game(
    cli_process: Runner, tmp_path: Path
) -> None:
    """Each death forfeits the game it was playing (the failure policy); after its restarts
    are used up, the rest of its games wait for a resume instead of becoming forfeits too."""
    tmp_path.chmod(0o755)  # the sandboxed bot runs under a user id of its own
    (tmp_path / "crasher.py").write_text(CRASHER)
    (tmp_path / "cup.toml").write_text(CRASH_CUP)
    db = tmp_path / "t.sqlite"
    run = cli_process("tournament", "run", "cup.toml", "--db", str(db), "--workers", "1",
                      cwd=tmp_path)  # deaths are counted per worker process (tournaments.md)
    assert run.status == 2, run.err
    last = run.err.splitlines()[-1]
    assert "craits: error: bot 'crasher' died 4 times in this run" in last
    assert "its remaining games were kept for later: fix it (see " in last
    assert "resume with `craits tournament resume " in last
    assert statuses(db) == ["paused"]
    with sqlite3.connect(db) as con:
        jobs = dict(con.execute("SELECT status, COUNT(*) FROM jobs GROUP BY status").fetchall())
    con.close()
    assert jobs.get("done") == 4  # the four games it died in, each a forfeit
    assert jobs.get("pending", 0) + jobs.get("running", 0) == 12 - 4


def test_a_database_that_fails_mid_run_is_one_line_with_the_resume_command(
    cli: Runner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk, here made by failing the second game's write as SQLite reports it."""
    real = Store.record_game
    calls = 0

    def filling(self: Store, game: FinishedGame) -> bool:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise sqlite3.OperationalError("database or disk is full")
        return real(self, game)

    monkeypatch.setattr(Store, "record_game", filling)
    cup = tmp_path / "tiny.toml"
    cup.write_text(TINY)
    db = tmp_path / "t.sqlite"
    run = cli("tournament", "run", str(cup), "--db", str(db), "--quiet")
    assert run.status == 1 and "Traceback" not in run.err
    last = run.err.splitlines()[-1]
    assert last.startswith(f"craits: error: the results database {db} failed during the run:"
                           " database or disk is full; the games recorded before it are kept")
    assert last.endswith(f"then resume with `craits tournament resume {tid(db)} --db {db}`")
    assert statuses(db) == ["paused"] and done_games(db) == 1
    monkeypatch.undo()  # the disk has room again
    resumed = cli("tournament", "resume", tid(db), "--db", str(db), "--quiet")
    assert resumed.status == 0, resumed.err
    assert statuses(db) == ["finished"] and done_games(db) == 2


def tid(db: Path) -> str:
    with sqlite3.connect(db) as con:
        (only,) = con.execute("SELECT id FROM tournaments").fetchone()
    con.close()
    return str(only)
