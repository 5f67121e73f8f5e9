"""The store's file: whose file it is, migrations from older versions, and what each tournament
keeps about where it was started."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from craits.tournament.plan.config import config_from_dict
from craits.tournament.run.runner import RunError, bot_directory
from craits.tournament.store.database import OpenMode, Store, StoreError
from craits.tournament.store.dbfile import open_connection
from craits.tournament.store.schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION

from .small_tournament import small_config


def version_1_store(path: Path) -> None:
    """A store as craits left it before it kept the starting directory, with one tournament."""
    with sqlite3.connect(path) as db:
        for statement in MIGRATIONS[0]:
            assert isinstance(statement, str)
            db.execute(statement)
        db.execute("PRAGMA user_version=1")
        db.execute("INSERT INTO tournaments (id, name, config, seed, created, status) VALUES"
                   " ('old', 'old', '{}', 1, '2024-01-01T00:00:00.000+00:00', 'finished')")
    db.close()


def test_a_version_1_store_is_migrated_and_keeps_its_tournaments(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    version_1_store(path)
    with Store.open(path) as store:
        assert store.pragma("user_version") == SCHEMA_VERSION
        assert store.pragma("application_id") == APPLICATION_ID
        assert store.tournament("old").workdir is None
        tid = store.create_tournament(small_config(), workdir=tmp_path)
        assert store.tournament(tid).workdir == tmp_path


def test_reading_an_old_store_neither_migrates_nor_writes_it(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    version_1_store(path)
    before = path.read_bytes()
    with Store.open(path, mode="read") as store:
        assert [t.id for t in store.tournaments()] == ["old"]
        assert store.tournament("old").workdir is None
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            store.set_status("old", "paused")
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.sqlite"]


@pytest.mark.parametrize("mode", ["read", "write"])
def test_only_create_mode_makes_a_file(tmp_path: Path, mode: OpenMode) -> None:
    with pytest.raises(StoreError, match="no such file"):
        Store.open(tmp_path / "new" / "t.sqlite", mode=mode)
    assert list(tmp_path.iterdir()) == []


def test_bot_commands_run_where_the_tournament_was_started(tmp_path: Path) -> None:
    with Store.open(tmp_path / "t.sqlite") as store:
        commands = config_from_dict({"table_size": 2, "bots": [
            {"name": "a", "command": "./a.sh"}, {"name": "b"}]})
        here = store.create_tournament(commands, "here", workdir=tmp_path)
        gone = store.create_tournament(commands, "gone", workdir=tmp_path / "gone")
        bundled = store.create_tournament(small_config(), "bundled", workdir=tmp_path / "gone")
        unknown = store.create_tournament(commands, "unknown")
        assert bot_directory(store.tournament(here), commands) == tmp_path
        with pytest.raises(RunError, match="gone, which no longer exists"):
            bot_directory(store.tournament(gone), commands)
        assert bot_directory(store.tournament(bundled), small_config()) is None
        assert bot_directory(store.tournament(unknown), commands) is None


def test_an_empty_file_becomes_a_store(tmp_path: Path) -> None:
    path = tmp_path / "touched.sqlite"
    path.write_bytes(b"")
    with Store.open(path) as store:
        assert store.pragma("application_id") == APPLICATION_ID
        assert store.tournaments() == []


@pytest.mark.parametrize(("user_version", "application_id"), [(0, 0), (1, 0), (3, 42)])
def test_another_programs_database_is_refused_and_left_as_it_was(
    tmp_path: Path, user_version: int, application_id: int
) -> None:
    path = tmp_path / "app.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE users (id INTEGER PRIMARY KEY)")
        db.execute(f"PRAGMA user_version={user_version}")
        db.execute(f"PRAGMA application_id={application_id}")
    db.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="not a craits results database"):
        Store.open(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.sqlite"]


def test_a_store_from_before_the_seed_index_gets_it_and_the_live_check_takes_it(
    tmp_path: Path,
) -> None:
    """The live pages ask ``deals_in_play`` of a few games at each request: the jobs sharing
    their seeds are to be looked up by the seed index, not found by a walk through every job
    (60 ms at 90,000 jobs: ``benchmarks/deals_bench.py``), also in a store written before the
    index (version 5), which gets it when opened to write."""
    path = tmp_path / "t.sqlite"
    with Store.open(path) as store:
        tid = store.create_tournament(small_config(deal_sets=4))
        jobs = store.jobs(tid)
    with sqlite3.connect(path) as db:
        db.execute("DROP INDEX jobs_by_seed")
        db.execute("PRAGMA user_version=5")
    db.close()
    connection = open_connection(path, "NORMAL", "write")
    statements: list[str] = []
    connection.set_trace_callback(statements.append)
    with Store(connection) as store:
        assert store.pragma("user_version") == SCHEMA_VERSION
        asked = [jobs[0].game_index, jobs[-1].game_index]
        assert store.deals_in_play(tid, asked) == {
            job.game_index: tuple(other.game_index for other in jobs
                                  if other.seed == job.seed and other is not job)
            for job in (jobs[0], jobs[-1])}
    (check,) = [sql for sql in statements if "seed IN" in sql]
    with sqlite3.connect(path) as db:
        plan = " ".join(row[3] for row in db.execute(f"EXPLAIN QUERY PLAN {check}"))
    db.close()
    assert "SEARCH jobs USING INDEX jobs_by_seed" in plan, plan
