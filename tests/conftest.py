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
