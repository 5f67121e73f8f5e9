"""Validation with real uploaded bots, each in its real sandbox and store: a working version
becomes ``rated``; one that crashes on its first move, and one that never connects, become
``rejected`` with a reason and an excerpt of their own log; a validation cut short by a dead
service is replayed by the next one."""

from __future__ import annotations

from pathlib import Path

import pytest

from craits.contest.config import load_contest_config
from craits.contest.store import ContestStore
from craits.contest.validation import ContestRun, validate, validation_loop
from craits.contest.versions import VersionState
from craits.referee.bridge import run

from .server import make_contest
from .uploaded import CRASHES_ON_FIRST_MOVE, NEVER_CONNECTS, add_version, wrapped

pytestmark = pytest.mark.slow


def _contest(tmp_path: Path) -> ContestRun:
    directory = tmp_path / "cup"
    make_contest(directory, "tables.max_seats = 3", names=("alice",))
    directory.chmod(0o755)
    store = ContestStore.open(directory / "contest.db")
    return ContestRun(directory, load_contest_config(directory), store)


def test_a_working_version_passes_and_broken_ones_say_why(tmp_path: Path) -> None:
    contest = _contest(tmp_path)
    good = add_version(contest.directory, contest.store, 1, wrapped("greedy"))
    crash = add_version(contest.directory, contest.store, 1, CRASHES_ON_FIRST_MOVE)
    absent = add_version(contest.directory, contest.store, 1, NEVER_CONNECTS)

    assert run(validate, contest, good).passed

    crashed = run(validate, contest, crash)
    assert not crashed.passed
    assert crashed.reason.startswith("conformance: ")
    assert "my first move is broken" in crashed.log
    assert str(contest.directory.resolve()) not in crashed.reason + crashed.log

    gone = run(validate, contest, absent)
    assert not gone.passed
    assert "connect" in gone.reason and "exit" in gone.reason, gone.reason
    assert "no referee for me" in gone.log


def test_the_loop_judges_the_queue_and_a_dead_validators_lease_is_replayed(
        tmp_path: Path) -> None:
    contest = _contest(tmp_path)
    good = add_version(contest.directory, contest.store, 1, wrapped("random"))
    bad = add_version(contest.directory, contest.store, 1, NEVER_CONNECTS)
    # A validator that died holding a lease: the next service releases it at start.
    assert contest.store.claim_validation(0.0, 10_000.0) is not None
    assert contest.store.claim_validation(0.0, 10_000.0) is not None
    assert contest.store.claim_validation(0.0, 10_000.0) is None
    assert contest.store.release_validation_leases() == 2

    async def until_done() -> None:
        import trio

        async with trio.open_nursery() as nursery:
            nursery.start_soon(validation_loop, contest)
            while contest.store.validation_queue():
                await trio.sleep(0.2)
            nursery.cancel_scope.cancel()

    run(until_done)
    assert contest.store.version(good.id).state == VersionState.RATED  # type: ignore[union-attr]
    rejected = contest.store.version(bad.id)
    assert rejected is not None and rejected.state == VersionState.REJECTED
    assert rejected.reason and "no referee for me" in rejected.log
