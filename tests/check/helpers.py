"""Running ``craits check`` in process and as a real process, and reading its JSON report."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from craits.cli.main import main

FORGETFUL = Path(__file__).with_name("forgetful.py")


@dataclass
class Outcome:
    """Exit status and output of one ``craits check`` run."""

    status: int
    out: str
    err: str

    def report(self) -> dict[str, Any]:
        """The one JSON object of ``--json`` (nothing else on stdout)."""
        assert self.out.count("\n") == 1, self.out
        data: dict[str, Any] = json.loads(self.out)
        return data

    def failed_names(self) -> list[str]:
        """Names of the failed checks, in order."""
        return [c["name"] for c in self.report()["checks"] if not c["passed"]]


def check_json(capsys: pytest.CaptureFixture[str], spec: str, *options: str) -> Outcome:
    """``craits check SPEC --json ...`` in this process."""
    status = main(["check", spec, "--json", *options])
    captured = capsys.readouterr()
    return Outcome(status, captured.out, captured.err)


def check_process(*argv: str) -> Outcome:
    """``python -m craits check ...`` as a user runs it."""
    proc = subprocess.run(
        [sys.executable, "-m", "craits", "check", *argv],
        capture_output=True, text=True, timeout=60,
    )
    return Outcome(proc.returncode, proc.stdout, proc.stderr)


def forgetful() -> str:
    """The SPEC of the bot that never announces 'one card'."""
    return f"{sys.executable} {FORGETFUL}"
