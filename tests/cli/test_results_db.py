"""The results database (``--db``, ``$CRAITS_DB``): every file that cannot be used is a one-line
error naming it and saying why, and no file that is not a craits store is ever changed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import Runner, not_mine

TINY = """
name = "tiny"
table_size = 2
deal_sets = 1
[rules]
short_game = true
[[bots]]
name = "greedy"
[[bots]]
name = "lowcard"
"""


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
