"""Smoke test of ``benchmarks/engine_bench.py``: it runs, and ``--json`` is one complete object."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the engine benchmark's smoke runs

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "engine_bench.py"


def test_quick_json_run() -> None:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--json"], capture_output=True, text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert {"machine", "games", "repeat", "playouts", "observe"} <= set(data)
    configs = {row["config"] for row in data["playouts"]}
    assert configs == {"standard", "gamerules", "spanish", "standard+face_cards"}
    assert sorted({row["players"] for row in data["playouts"]}) == [2, 3, 4, 5, 6, 10]
    assert len(data["playouts"]) == 24
    assert all(row["decisions_per_second"] > 0 for row in data["playouts"])
    assert [row["players"] for row in data["observe"]] == [2, 3, 4, 5, 6, 10]
    # a difference of two timings: on a busy machine it can come out at or below zero, so the
    # test asks only for a number (timings are the benchmark's to report, not a test's)
    assert all(math.isfinite(row["observe_since_us"]) for row in data["observe"])
    searched = [row for row in data["search"] if "missing" not in row]
    assert searched
    assert all(row["worlds_per_second"] > 0 and row["explained_worlds_per_second"] > 0
               for row in searched)


def test_quick_table_run() -> None:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick"], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert "decisions/s" in proc.stdout
    assert "observe(since)" in proc.stdout
