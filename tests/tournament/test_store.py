"""The SQLite store: WAL, schedule rows, claiming, atomic idempotent recording, crash and resume."""

from __future__ import annotations

import dataclasses
import signal
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from craits.ratings.standings import Standings, compute_standings
from craits.tournament.plan.schedule import build_schedule
from craits.tournament.store.database import CSV_FIELDS, Store, StoreError
from craits.tournament.store.game_records import FinishedGame, PlayLog
from craits.tournament.store.record_codec import decode
from craits.tournament.store.schema import SCHEMA_VERSION

from .fake_runner import play, run
from .small_tournament import small_config

FAKE_RUNNER = Path(__file__).with_name("fake_runner.py")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "arena.sqlite") as opened:
        yield opened


def standings(store: Store, tid: str) -> Standings:
    """The standings of the stored results, computed here rather than by ``Store.standings``."""
    return compute_standings(store.results(tid), store.config(tid).bot_names)


def count(path: Path, sql: str) -> int:
    """A number read with a separate connection, as another process would see it."""
    with sqlite3.connect(path) as db:
        value: int = db.execute(sql).fetchone()[0]
    return value


def test_file_store_is_in_wal_mode_with_the_current_schema(store: Store) -> None:
    assert store.pragma("journal_mode") == "wal"
    assert store.pragma("synchronous") == 1  # NORMAL
    assert store.pragma("user_version") == SCHEMA_VERSION
    assert store.pragma("foreign_keys") == 1


def test_reopening_keeps_everything_and_refuses_newer_schemas(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite"
    with Store.open(path) as first:
        tid = first.create_tournament(small_config())
    with Store.open(path, synchronous="FULL") as again:
        assert again.pragma("synchronous") == 2
        assert again.tournament(tid).total == 12
        assert again.config(tid) == small_config()
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="upgrade craits"):
        Store.open(path)


def test_create_stores_the_whole_schedule(store: Store) -> None:
    config = small_config()
    tid = store.create_tournament(config, "t1")
    assert store.jobs(tid) == build_schedule(config, "t1")
    info = store.tournament(tid)
    assert (info.id, info.name, info.seed, info.status) == ("t1", "small", 5, "created")
    assert info.jobs == {"pending": 12, "running": 0, "done": 0, "skipped": 0}
    assert [t.id for t in store.tournaments()] == ["t1"]
    with pytest.raises(StoreError, match="already exists"):
        store.create_tournament(config, "t1")
    with pytest.raises(StoreError, match="no tournament"):
        store.tournament("nope")
    store.set_status(tid, "running")
    assert store.tournament(tid).status == "running"


def test_claims_follow_game_order_and_respect_the_runners_filter(store: Store) -> None:
    tid = store.create_tournament(small_config(), "t1")
    first = store.claim_next(tid)
    assert first is not None and first.game_index == 0
    without_ann = store.claim_next(tid, lambda seats: "ann" not in seats)
    assert without_ann is not None and "ann" not in without_ann.seats
    assert store.claim_next(tid, lambda seats: False) is None
    assert store.tournament(tid).jobs["running"] == 2
    assert store.reset_running(tid) == 2
    again = store.claim_next(tid)
    assert again is not None and again.game_index == 0


def test_recording_the_same_job_twice_stores_it_once(store: Store, tmp_path: Path) -> None:
    tid = store.create_tournament(small_config(), "t1")
    job = store.claim_next(tid)
    assert job is not None
    finished = play(job)
    assert store.record_game(finished) is True
    assert store.record_game(finished) is False
    db = tmp_path / "arena.sqlite"
    assert count(db, "SELECT COUNT(*) FROM games") == 1
    assert count(db, "SELECT COUNT(*) FROM events") == 0
    with sqlite3.connect(db) as raw:
        assert raw.execute("SELECT rules, seed FROM games").fetchone() == (job.rules_json, job.seed)
    assert store.tournament(tid).jobs["done"] == 1
    row = store.game_record(tid, job.game_index)
    assert row is not None and row.record is not None
    assert decode(row.record) == finished.play
    assert finished.play.choices and set(finished.play.elapsed_ms) == {0.1}
    assert row.outcome == dict(finished.outcome)
    assert store.game_log(tid, job.game_index) == []
    [result] = store.results(tid)
    assert (result.seats, result.totals, result.places) == (job.seats, finished.totals,
                                                            finished.places)


def test_a_failed_recording_leaves_nothing_behind(store: Store, tmp_path: Path) -> None:
    tid = store.create_tournament(small_config(), "t1")
    job = store.claim_next(tid)
    assert job is not None
    good = play(job)
    unencodable = PlayLog((0, object()), (1.0, 1.0), (1, 2))  # type: ignore[arg-type]
    bad = dataclasses.replace(good, play=unencodable)
    with pytest.raises(TypeError):
        store.record_game(bad)
    wrong_shape = FinishedGame(tid, job.game_index, (1, 2, 3), good.places, good.strikes,
                               good.forfeited, good.started, good.finished)
    with pytest.raises(StoreError, match="totals has 3 entries for 2 seats"):
        store.record_game(wrong_shape)
    with pytest.raises(StoreError, match="no job 999"):
        store.record_game(FinishedGame(tid, 999, (), (), (), (), 0.0, 0.0))
    db = tmp_path / "arena.sqlite"
    assert count(db, "SELECT COUNT(*) FROM games") == 0
    assert count(db, "SELECT COUNT(*) FROM events") == 0
    assert store.tournament(tid).jobs["running"] == 1
    assert store.record_game(good) is True


def test_resume_resets_running_jobs_and_keeps_finished_ones(store: Store) -> None:
    tid = store.create_tournament(small_config(), "t1")
    done = store.claim_next(tid)
    assert done is not None
    store.record_game(play(done))
    store.claim_next(tid)
    store.claim_next(tid)
    assert store.reset_running(tid) == 2
    assert store.tournament(tid).jobs == {"pending": 11, "running": 0, "done": 1, "skipped": 0}
    assert store.reset_running(tid) == 0
    assert run(store, tid) == 11
    assert store.tournament(tid).jobs["done"] == 12


def test_skip_pending_stops_a_match_but_late_games_still_count(store: Store) -> None:
    tid = store.create_tournament(small_config(), "t1")
    late = store.claim_next(tid)
    assert late is not None
    assert store.skip_pending(tid) == 11
    assert store.claim_next(tid) is None
    assert store.record_game(play(late)) is True
    assert store.tournament(tid).jobs == {"pending": 0, "running": 0, "done": 1, "skipped": 11}


def test_export_rows_one_per_seat(store: Store) -> None:
    tid = store.create_tournament(small_config(deal_sets=1), "t1")
    run(store, tid)
    rows = store.export_rows(tid)
    assert len(rows) == 6 * 2
    assert all(tuple(row) == CSV_FIELDS for row in rows)
    assert [(r["game_index"], r["seat"]) for r in rows[:3]] == [(0, 0), (0, 1), (1, 0)]


def test_standings_are_those_of_the_stored_results(store: Store) -> None:
    tid = store.create_tournament(small_config(deal_sets=1), "t1")
    run(store, tid)
    assert store.standings(tid) == compute_standings(store.results(tid),
                                                     store.config(tid).bot_names)


@pytest.mark.slow
def test_kill_9_mid_recording_then_resume_gives_the_uninterrupted_standings(
    tmp_path: Path,
) -> None:
    config = small_config(deal_sets=2)
    with Store.open(tmp_path / "clean.sqlite") as clean:
        clean.create_tournament(config, "t1")
        assert run(clean, "t1") == 12
        expected_results = clean.results("t1")
        expected = standings(clean, "t1")

    path = tmp_path / "crashed.sqlite"
    with Store.open(path) as crashed:
        crashed.create_tournament(config, "t1")
    proc = subprocess.run([sys.executable, str(FAKE_RUNNER), str(path), "t1", "--die-after", "5"],
                          capture_output=True, timeout=60)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()

    with Store.open(path) as resumed:
        info = resumed.tournament("t1")
        assert info.jobs == {"pending": 6, "running": 1, "done": 5, "skipped": 0}
        assert count(path, "SELECT COUNT(*) FROM games") == 5
        assert count(path, "SELECT COUNT(record) FROM games") == 5
        assert resumed.reset_running("t1") == 1
        assert run(resumed, "t1") == 7
        assert count(path, "SELECT COUNT(*) FROM games") == 12
        assert resumed.results("t1") == expected_results
        assert standings(resumed, "t1") == expected


def test_threads_share_the_store_without_claiming_a_job_twice(store: Store) -> None:
    tid = store.create_tournament(small_config(deal_sets=5), "t1")
    claimed: list[int] = []

    def worker() -> None:
        while (job := store.claim_next(tid)) is not None:
            claimed.append(job.game_index)
            store.record_game(FinishedGame(tid, job.game_index, (0, 0), (1, 1), (0, 0),
                                           (False, False), 0.0, 0.0))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(claimed) == list(range(30))
    assert store.tournament(tid).jobs["done"] == 30


def test_only_a_tournament_without_games_can_be_deleted(store: Store) -> None:
    empty = store.create_tournament(small_config(), "empty")
    played = store.create_tournament(small_config(), "played")
    job = store.claim_next(played)
    assert job is not None
    store.record_game(play(job))
    store.delete_tournament(empty)
    with pytest.raises(StoreError, match="has 1 recorded games"):
        store.delete_tournament(played)
    assert [t.id for t in store.tournaments()] == ["played"]
    assert store.jobs(empty) == []
