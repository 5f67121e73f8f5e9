"""Fixtures for the CLI tests: run ``craits`` in process or as a real subprocess."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from craits.cli.main import main

from .helpers import Result, Runner, done_games


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
