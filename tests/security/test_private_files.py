"""The results database (and its -wal and -shm), the bots' logs and the runner's lock are made
readable by their owner only, whatever the umask; the stored configuration holds no token."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from craits.referee import tokens
from craits.tournament.plan.config import parse_config
from craits.tournament.store.database import Store
from craits.tournament.store.dbfile import open_connection

from ..cli.helpers import TINY


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def usual_umask() -> Iterator[None]:
    """The umask most systems give users (group and others may read what is made)."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


@pytest.mark.slow
def test_a_tournaments_database_directory_logs_and_lock_are_owner_only(
    tmp_path: Path, usual_umask: None
) -> None:
    config = tmp_path / "tiny.toml"
    config.write_text(TINY)
    db = tmp_path / "new" / "results.db"
    proc = subprocess.run(
        [sys.executable, "-m", "craits", "tournament", "run", str(config), "--db", str(db),
         "--json"], capture_output=True, text=True, timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    assert _mode(db.parent) == 0o700 and _mode(db) == 0o600
    logs = sorted((db.parent / "logs").rglob("*"))
    assert any(p.name.endswith(".stderr.log") for p in logs)
    assert any(p.name == "runner.lock" for p in logs)
    assert _mode(db.parent / "logs") == 0o700
    for path in logs:
        assert _mode(path) == (0o700 if path.is_dir() else 0o600), path


def test_sqlite_gives_the_wal_and_shm_files_the_databases_mode(
    tmp_path: Path, usual_umask: None
) -> None:
    path = tmp_path / "fresh.db"
    db = open_connection(path, "NORMAL", "create")
    try:
        db.execute("PRAGMA user_version")
        wal, shm = Path(f"{path}-wal"), Path(f"{path}-shm")
        assert wal.exists() and shm.exists()
        assert [_mode(p) for p in (path, wal, shm)] == [0o600] * 3
    finally:
        db.close()


def test_the_stored_configuration_holds_a_remote_bots_token_only_hashed(tmp_path: Path) -> None:
    token = tokens.issue()
    config = parse_config(TINY + f'[[bots]]\nname = "far"\nremote = true\ntoken = "{token}"\n',
                          bundled_names={"greedy", "lowcard"})
    path = tmp_path / "t.db"
    with Store.open(path) as store:
        tid = store.create_tournament(config)
        stored = {b.name: b.token for b in store.config(tid).bots}
    assert stored["far"] == tokens.digest(token)
    assert token.encode() not in path.read_bytes()
