"""The results database (``--db``, ``$CRAITS_DB``): every file that cannot be used is a one-line
error naming it and saying why; no file that is not a craits store is ever changed; only
``tournament run`` creates a database, and the commands that look at one never change it."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import TINY, Runner, not_mine


def other_programs_database(path: Path) -> Path:
    """An SQLite file of some other program, with a table a store also has."""
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
        db.execute("CREATE TABLE games (id INTEGER PRIMARY KEY)")
        db.execute("INSERT INTO users (name) VALUES ('ann')")
    db.close()
    return path


def snapshot(path: Path) -> tuple[bytes, list[str]]:
    """The file's bytes and what lies beside it."""
    return path.read_bytes(), sorted(p.name for p in path.parent.iterdir())


@pytest.mark.parametrize("command", [("list",), ("show", "abc"), ("resume", "abc"), ("run",)])
def test_a_file_that_is_not_a_database_is_refused_and_untouched(
    cli: Runner, tmp_path: Path, command: tuple[str, ...]
) -> None:
    toml = tmp_path / "cup.toml"
    toml.write_text(TINY)
    before = snapshot(toml)
    cli("tournament", *command, "--db", str(toml)).assert_usage_error(
        f"cannot open results database {toml}: file is not a database")
    assert snapshot(toml) == before


@pytest.mark.parametrize("command", [("list",), ("show", "abc"), ("resume", "abc"), ("run",)])
def test_another_programs_database_is_refused_and_untouched(
    cli: Runner, tmp_path: Path, command: tuple[str, ...]
) -> None:
    other = other_programs_database(tmp_path / "app.sqlite")
    before = snapshot(other)
    cli("tournament", *command, "--db", str(other)).assert_usage_error(
        f"cannot open results database {other}: it is not a craits results database "
        "(it holds tables games, users)")
    assert snapshot(other) == before


def test_a_directory_or_a_path_through_a_file_is_refused(cli: Runner, tmp_path: Path) -> None:
    cli("tournament", "run", "--db", str(tmp_path)).assert_usage_error(
        f"cannot open results database {tmp_path}: it is a directory")
    a_file = tmp_path / "logs"
    a_file.write_text("")
    under = a_file / "t.sqlite"
    cli("tournament", "run", "--db", str(under)).assert_usage_error(
        f"cannot open results database {under}: {a_file} is not a directory")


def test_an_empty_db_option_is_refused(cli: Runner, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for command in (("list",), ("run",), ("show", "x"), ("resume", "x")):
        cli("tournament", *command, "--db", "").assert_usage_error("--db is empty")
    cli("replay", "x", "0", "--db", "").assert_usage_error("--db is empty")
    cli("report", "x", "--html", "out", "--db", "").assert_usage_error("--db is empty")
    assert list(tmp_path.iterdir()) == []


def test_an_empty_craits_db_counts_as_unset(cli: Runner, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CRAITS_DB", "")
    listed = cli("tournament", "list")
    assert "craits-results/tournaments.sqlite" in listed.out + listed.err
    monkeypatch.setenv("CRAITS_DB", str(tmp_path / "env.sqlite"))
    cli("tournament", "show", "abc").assert_usage_error("env.sqlite")


@pytest.mark.slow
def test_run_in_a_directory_it_may_not_write_is_a_clear_error(
    unprivileged: Runner, tmp_path: Path
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    not_mine(locked)
    db = locked / "t.sqlite"
    unprivileged("tournament", "run", "--db", str(db)).assert_usage_error(
        f"cannot open results database {db}: cannot create it in {locked}")
    assert not db.exists()


LOOKERS = [("tournament", "list"), ("tournament", "show", "ID"), ("tournament", "show", "ID",
           "--csv"), ("replay", "ID", "0"), ("report", "ID", "--html", "OUT", "--quiet")]
"""Commands that only look at a database (ID and OUT are filled in)."""
NOT_RUN = [*LOOKERS, ("tournament", "resume", "ID")]


@pytest.mark.parametrize("command", NOT_RUN)
def test_only_run_creates_a_database(cli: Runner, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch,
                                     command: tuple[str, ...]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CRAITS_DB", raising=False)
    argv = [{"ID": "abc", "OUT": "out"}.get(word, word) for word in command]
    typo = Path("typo/dir/t.sqlite")
    cli(*argv, "--db", str(typo)).assert_usage_error(f"no results database at {typo}")
    cli(*argv).assert_usage_error("no results database at craits-results/tournaments.sqlite")
    assert list(tmp_path.iterdir()) == []


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A results database with one finished tournament of two games: (db, id)."""
    home = tmp_path_factory.mktemp("played")
    (home / "tiny.toml").write_text(TINY)
    db = home / "results" / "t.sqlite"
    done = subprocess.run([sys.executable, "-m", "craits", "tournament", "run", "tiny.toml",
                           "--db", str(db), "--json"], cwd=home, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return db, json.loads(done.stdout)["tournament"]


@pytest.mark.parametrize("command", LOOKERS)
@pytest.mark.slow
def test_looking_at_a_database_changes_nothing(cli: Runner, tmp_path: Path,
                                               played: tuple[Path, str],
                                               command: tuple[str, ...]) -> None:
    db, tid = played
    before = snapshot(db)
    argv = [{"ID": tid, "OUT": str(tmp_path / "out")}.get(word, word) for word in command]
    looked = cli(*argv, "--db", str(db))
    assert looked.status == 0, looked.err
    assert snapshot(db) == before


def test_an_empty_file_is_no_database_to_look_at(cli: Runner, tmp_path: Path) -> None:
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    cli("tournament", "list", "--db", str(empty)).assert_usage_error(
        f"cannot open results database {empty}: it is an empty file")
    assert empty.read_bytes() == b""


@pytest.mark.parametrize("whose", ["file", "file and directory"])
@pytest.mark.slow
def test_a_database_one_may_read_but_not_write(unprivileged: Runner, tmp_path: Path,
                                               played: tuple[Path, str], whose: str) -> None:
    place = tmp_path / "theirs"
    place.mkdir()
    db = place / "t.sqlite"
    shutil.copy(played[0], db)
    not_mine(db, *([place] if whose == "file and directory" else []))
    tid = played[1]
    before = snapshot(db)
    for command in [("tournament", "list"), ("tournament", "show", tid),
                    ("tournament", "show", tid, "--csv"), ("replay", tid, "1"),
                    ("report", tid, "--html", str(tmp_path / "report"), "--quiet")]:
        looked = unprivileged(*command, "--db", str(db))
        assert looked.status == 0, (command, looked.err)
    assert "finished" in unprivileged("tournament", "list", "--db", str(db)).out
    for command in [("tournament", "resume", tid), ("tournament", "run")]:
        unprivileged(*command, "--db", str(db)).assert_usage_error(
            f"cannot open results database {db}: no permission to write it or its directory")
    assert snapshot(db) == before
