"""Fixtures for the CLI tests: run ``craits`` in process or as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from craits.cli.main import main


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
    """Run ``python -m craits *argv`` as a real process, as a user would."""

    def run(*argv: str) -> Result:
        proc = subprocess.run(
            [sys.executable, "-m", "craits", *argv], capture_output=True, text=True, timeout=120
        )
        return Result(proc.returncode, proc.stdout, proc.stderr)

    return run
