"""The contest store: WAL, tokens never stored, versions by content hash, the state machine,
the validation queue's leases (logic on made-up times)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from craits.contest.store import ContestStore, NameTaken, NewVersion, StoreError
from craits.contest.tokens import PREFIX, new_token, token_digest
from craits.contest.versions import MOVES, VersionState, VersionStateError


def version(content: str = "a" * 64) -> NewVersion:
    return NewVersion(content, "bot.py", "python bot.py", "python", 2, 100)


@pytest.fixture
def store(tmp_path: Path) -> ContestStore:
    return ContestStore.open(tmp_path / "contest.db")


def test_wal_and_full_sync(store: ContestStore) -> None:
    assert store.pragma("journal_mode") == "wal"
    assert store.pragma("synchronous") == 2  # FULL


def test_a_token_is_found_by_its_digest_and_never_stored(tmp_path: Path) -> None:
    store = ContestStore.open(tmp_path / "contest.db")
    token = new_token()
    assert token.startswith(PREFIX) and len(token) > 40
    alice = store.add_contestant("alice", token_digest(token), 1.0)
    assert store.contestant_by_digest(token_digest(token)) == alice
    assert store.contestant_by_digest(token_digest(token + "x")) is None
    store.close()
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert token_digest(token).encode() in stored and token.encode() not in stored


def test_names_are_unique(store: ContestStore) -> None:
    store.add_contestant("alice", "d1", 1.0)
    with pytest.raises(NameTaken, match="exists already"):
        store.add_contestant("alice", "d2", 2.0)


def test_the_same_content_is_the_same_version_for_its_owner_only(store: ContestStore) -> None:
    alice = store.add_contestant("alice", "d1", 0.0)
    bob = store.add_contestant("bob", "d2", 0.0)
    first, outcome = store.record_upload(alice.id, version(), 1.0)
    assert (first.number, first.state, outcome) == (1, VersionState.VALIDATING, "new")
    again, outcome = store.record_upload(alice.id, version(), 2.0)
    assert (again.id, outcome) == (first.id, "same")
    second, _ = store.record_upload(alice.id, version("b" * 64), 3.0)
    assert second.number == 2
    # bob uploading alice's content gets a version of his own (and learns nothing of hers)
    his, outcome = store.record_upload(bob.id, version(), 4.0)
    assert (his.number, outcome) == (1, "new") and his.id != first.id
    assert [v.number for v in store.versions_of(alice.id)] == [2, 1]
    assert store.upload_times(alice.id, 0.0) == [1.0, 2.0, 3.0]


def test_the_state_machine_refuses_other_moves(store: ContestStore) -> None:
    alice = store.add_contestant("alice", "d1", 0.0)
    v, _ = store.record_upload(alice.id, version(), 1.0)
    with pytest.raises(VersionStateError, match="only with a reason"):
        store.set_state(v.id, VersionState.REJECTED, 2.0)
    with pytest.raises(VersionStateError, match="cannot become suspended"):
        store.set_state(v.id, VersionState.SUSPENDED, 2.0, reason="x")
    rated = store.set_state(v.id, VersionState.RATED, 2.0, log="passed 12 positions")
    assert (rated.state, rated.log) == (VersionState.RATED, "passed 12 positions")
    suspended = store.set_state(v.id, VersionState.SUSPENDED, 3.0, reason="faults: 6 of 50")
    assert suspended.reason == "faults: 6 of 50"
    assert store.set_state(v.id, VersionState.RATED, 4.0).reason is None


def test_rejected_is_final() -> None:
    assert MOVES[VersionState.REJECTED] == frozenset()


def test_playing_versions_are_the_latest_rated(store: ContestStore) -> None:
    alice = store.add_contestant("alice", "d1", 0.0)
    ids = [store.record_upload(alice.id, version(c * 64), 1.0)[0].id for c in "abcd"]
    for vid in ids[:3]:
        store.set_state(vid, VersionState.RATED, 2.0)
    assert [v.number for v in store.playing_versions(alice.id, 2)] == [3, 2]


def test_the_validation_queue_replays_an_expired_lease(store: ContestStore) -> None:
    alice = store.add_contestant("alice", "d1", 0.0)
    first = store.record_upload(alice.id, version("a" * 64), 1.0)[0]
    second = store.record_upload(alice.id, version("b" * 64), 2.0)[0]
    assert store.claim_validation(now=10.0, lease_s=60.0) == first
    assert store.claim_validation(now=11.0, lease_s=60.0) == second
    assert store.claim_validation(now=12.0, lease_s=60.0) is None
    # the validator of `first` died: its lease runs out and it is claimed again
    assert store.claim_validation(now=70.5, lease_s=60.0) == first
    store.set_state(first.id, VersionState.REJECTED, 71.0, reason="crashed", log="Traceback")
    assert [v.id for v in store.validation_queue()] == [second.id]
    assert store.claim_validation(now=200.0, lease_s=60.0) == second


def test_faults_are_kept_per_version(store: ContestStore) -> None:
    alice = store.add_contestant("alice", "d1", 0.0)
    v = store.record_upload(alice.id, version(), 1.0)[0]
    store.add_fault(v.id, "timeout", 2.0, game="g1")
    store.add_fault(v.id, "illegal move", 3.0)
    assert [f.reason for f in store.faults_of(v.id)] == ["illegal move", "timeout"]


def test_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "contest.db"
    path.write_text("not sqlite " * 100)
    with pytest.raises(StoreError, match="not a contest database"):
        ContestStore.open(path)


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "contest.db"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version=99")
    with pytest.raises(StoreError, match="newer craits"):
        ContestStore.open(path)
