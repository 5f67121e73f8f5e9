"""The ladder's records in a real SQLite WAL store: a seating is recorded once however often it
is replayed, a claimed table stays open until finished (what a restarted service replays), and
the fault window counts what suspension reads."""

from __future__ import annotations

from pathlib import Path

from craits.contest.ladderstore import (
    claim_table,
    deal_key,
    finish_table,
    open_tables,
    recent_faults,
    record_game,
    scored_games,
    table_key,
)
from craits.contest.store import ContestStore
from craits.tournament.store.game_records import FinishedGame, LoggedFault, PlayLog

from .server import make_contest
from .uploaded import add_version, wrapped


def _game(faulty_seat: int | None = None) -> FinishedGame:
    faults = () if faulty_seat is None else (
        LoggedFault("strike", faulty_seat, "timeout", "no answer in 1000 ms", 3),)
    return FinishedGame("contest", 0, (10, 20), (1, 2), (0, 0), (False, False), 1.0, 2.0,
                        PlayLog(faults=faults))


def test_a_seating_is_recorded_once_and_open_tables_are_replayed(tmp_path: Path) -> None:
    make_contest(tmp_path / "cup", names=("a", "b"))
    store = ContestStore.open(tmp_path / "cup" / "contest.db")
    one = add_version(tmp_path / "cup", store, 1, wrapped("greedy"))
    two = add_version(tmp_path / "cup", store, 2, wrapped("random"))
    key = deal_key(store)
    assert deal_key(store).hex == key.hex  # drawn once, kept
    assert table_key(key, 1).hex != table_key(key, 2).hex

    table = claim_table(store, [one.id, two.id], "new", 5.0)
    assert record_game(store, table.id, 0, [one.id, two.id], _game(1), "g-1", 6.0)
    assert not record_game(store, table.id, 0, [one.id, two.id], _game(1), "g-1", 6.0)
    (reopened,) = open_tables(store)
    assert reopened.missing == [1]
    assert record_game(store, table.id, 1, [two.id, one.id], _game(0), "g-2", 7.0)
    finish_table(store, table.id, 8.0)
    assert open_tables(store) == []

    games = scored_games(store)
    assert [(g.meeting_index, g.rotation, g.seats) for g in games] == [
        (table.id, 0, (str(one.id), str(two.id))), (table.id, 1, (str(two.id), str(one.id)))]
    assert recent_faults(store, two.id, 50) == (2, 2)
    assert recent_faults(store, one.id, 50) == (2, 0)
    assert len(store.faults_of(two.id)) == 2 and store.faults_of(one.id) == []
    assert "timeout" in store.faults_of(two.id)[0].reason
