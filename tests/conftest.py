"""Fixtures for the whole suite."""

from __future__ import annotations

import fcntl
import os
import tempfile
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True, scope="session")
def _temp_dirs_inside_pytests(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Whatever the commands under test leave in the temp dir (a failed run's bot logs, on
    purpose) goes into pytest's own temp dir, which pytest prunes, never loose in /tmp: in
    this process and in every process the tests start."""
    path = str(tmp_path_factory.mktemp("tmpdir"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TMPDIR", path)
        patch.setattr(tempfile, "tempdir", path)
        yield


@pytest.fixture(autouse=True)
def _tmp_path_readable_by_sandboxed_bots(request: pytest.FixtureRequest) -> None:
    """pytest makes ``tmp_path`` private (0700), but a command bot in an adversarial tournament
    runs under a user id of its own and must be able to read its directory, as in real use
    (``docs/security.md``). Tests of a private bot directory make theirs private again."""
    if "tmp_path" in request.fixturenames:
        request.getfixturevalue("tmp_path").chmod(0o755)


@pytest.fixture(autouse=True)
def _alone_when_marked(request: pytest.FixtureRequest,
                       tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """On parallel workers (pytest-xdist, docs/testing.md), a test marked ``alone`` has the
    machine to itself: what it checks moves with every process on the machine (the seating-order
    tests' covert channel is the machine's task count), so another worker's test beside it is
    noise in that channel, never a race to wait out. Every other test holds ``alone.lock``
    shared while it runs and the ``alone`` test holds it exclusively: it starts once the tests
    in progress end, and none starts until it ends. It first takes ``turnstile.lock``, which
    each other test passes through before its own lock, so a worker running test after test
    cannot keep it waiting. Both files are in the run's directory that the workers share; in
    one process there is nothing to wait for."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        yield
        return
    shared = tmp_path_factory.getbasetemp().parent
    alone = request.node.get_closest_marker("alone") is not None
    with (shared / "turnstile.lock").open("a") as turnstile, \
            (shared / "alone.lock").open("a") as lock:
        fcntl.flock(turnstile, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        fcntl.flock(lock, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        if not alone:
            fcntl.flock(turnstile, fcntl.LOCK_UN)
        yield
