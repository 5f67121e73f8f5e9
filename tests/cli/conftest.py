"""Fixtures for the CLI tests: run ``craits`` in process or as a real subprocess."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from craits.cli.main import main

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
"""The smallest tournament: two bundled bots, one short game each way."""


@dataclass
class Result:
    """What one ``craits`` run produced."""

    status: int
    out: str
    err: str

    def json(self) -> Any:
        """stdout as the one JSON object the ``--json`` contract promises."""
        assert self.out.count("\n") == 1, f"expected exactly one line on stdout: {self.out!r}"
        return json.loads(self.out)

    def assert_usage_error(self, *fragments: str) -> None:
        """Exit 2 and exactly one ``craits: error:`` line naming the problem, no traceback."""
        assert self.status == 2, self
        assert self.out == ""
        lines = self.err.splitlines()
        assert len(lines) == 1, self.err
        assert lines[0].startswith("craits: error: ")
        assert "Traceback" not in self.err
        for fragment in fragments:
            assert fragment in lines[0]


    def assert_option_error(self, option: str, *fragments: str) -> None:
        """Exit 2 from argparse: the usage, then one error line naming ``option``; no traceback."""
        assert self.status == 2, self
        assert self.out == "" and "Traceback" not in self.err
        last = self.err.splitlines()[-1]
        assert "error: argument " in last and option in last, self.err
        for fragment in fragments:
            assert fragment in last, last


Runner = Callable[..., Result]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Runner:
    """Run ``craits *argv`` in this process (argparse's own errors exit via SystemExit)."""

    def run(*argv: str) -> Result:
        try:
            status = main(list(argv))
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else 1
        captured = capsys.readouterr()
        return Result(status, captured.out, captured.err)

    return run


@pytest.fixture
def cli_process() -> Runner:
    """Run ``python -m craits *argv`` as a real process, as a user would (in ``cwd``, if given,
    with ``env`` added to the environment)."""

    def run(*argv: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> Result:
        proc = subprocess.run(
            [sys.executable, "-m", "craits", *argv], capture_output=True, text=True, timeout=120,
            cwd=cwd, env={**os.environ, **(env or {})},
        )
        return Result(proc.returncode, proc.stdout, proc.stderr)

    return run


def done_games(db: Path) -> int:
    """Games recorded so far, read as another process would (0 before the schema exists)."""
    if not db.exists():
        return 0
    try:
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)) as con:
            return int(con.execute("SELECT COUNT(*) FROM jobs WHERE status='done'").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


@pytest.fixture
def interrupted() -> Callable[..., Result]:
    """Start ``craits *argv``, press Ctrl-C (SIGINT, or send ``sig``) once ``games`` games are
    in ``db``."""

    def run(*argv: str, db: Path, games: int, cwd: Path | None = None,
            sig: signal.Signals = signal.SIGINT) -> Result:
        proc = subprocess.Popen([sys.executable, "-m", "craits", *argv], cwd=cwd, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        while done_games(db) < games:
            assert proc.poll() is None, f"the run ended before it could be interrupted: {proc}"
            assert time.monotonic() < deadline, "the run made no progress"
            time.sleep(0.05)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
        return Result(proc.returncode, out, err)

    return run


NOBODY = 65534


def not_mine(*paths: Path) -> None:
    """Make ``paths`` (files, then the directories they are in) readable but not writable by
    the ``unprivileged`` runner: owned by nobody when we are root, read-only anyway."""
    for path in paths:
        if os.geteuid() == 0:
            os.chown(path, NOBODY, NOBODY)
        path.chmod(0o555 if path.is_dir() else 0o444)


@pytest.fixture
def unprivileged(tmp_path: Path) -> Iterator[Runner]:
    """Run ``python -m craits *argv`` as a process that file permissions apply to.

    Root ignores them, so as root the process runs without the capabilities that override them
    (``setpriv``); it is still root, so it can use this interpreter and tmp_path. Afterwards
    tmp_path is made writable again for pytest's clean-up.
    """
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: cannot drop the override of "
                        "file permissions")
        prefix = [setpriv, "--bounding-set", "-dac_override,-dac_read_search,-fowner"]

    def run(*argv: str, cwd: Path | None = None) -> Result:
        proc = subprocess.run([*prefix, sys.executable, "-m", "craits", *argv], cwd=cwd,
                              capture_output=True, text=True, timeout=120)
        return Result(proc.returncode, proc.stdout, proc.stderr)

    yield run
    for path in tmp_path.rglob("*"):
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
