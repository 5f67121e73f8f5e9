"""Fixtures for the whole suite."""

from __future__ import annotations

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
