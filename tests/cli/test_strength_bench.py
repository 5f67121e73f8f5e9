"""Smoke test of ``benchmarks/strength_bench.py``: a small run in both deal modes, and the
errors a user can make."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the strength benchmark's smoke runs

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "strength_bench.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=300)


def test_duplicate_and_independent_runs_report_every_opponent() -> None:
    for mode in ([], ["--independent"]):
        proc = _run("--bot", "greedy", "--against", "random,lowcard", "--players", "3",
                    "--deals", "3", "--workers", "1", "--json", *mode)
        assert proc.returncode == 0, proc.stderr
        report = json.loads(proc.stdout)
        assert report["games"] == 9
        assert report["duplicate"] == (not mode)
        assert [row["opponent"] for row in report["opponents"]] == ["random", "lowcard"]
        assert all(0 <= row["score"] <= 1 for row in report["opponents"])


def test_a_mistyped_bot_or_argument_is_an_error_not_a_traceback() -> None:
    for args, says in ((["--bot", "nobot"], "no bundled bot 'nobot'"),
                       (["--bot", "ismcts:bogus=1"], "cannot make 'ismcts:bogus=1'"),
                       (["--bot", "greedy", "--deals", "1"], "at least 2")):
        proc = _run(*args)
        assert proc.returncode == 2
        assert says in proc.stderr and "Traceback" not in proc.stderr
