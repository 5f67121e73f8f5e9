"""Smoke test of ``benchmarks/belief_bench.py``: the model's knobs reach the weights, and bad
ones are a usage error, not a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "belief_bench.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), "--games", "1", "--worlds", "8", *args],
                          capture_output=True, text=True, timeout=300)


def _report(*args: str) -> dict[str, Any]:
    proc = _run("--json", *args)
    assert proc.returncode == 0, proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


@pytest.mark.slow
def test_the_bots_model_by_default_and_its_knobs_when_given() -> None:
    default = _report("--players", "3")
    assert default["temperature"] == 10.0 and default["exponent"] == 0.5
    assert default["positions"] > 0
    assert default["weighted"] != default["unweighted"]
    # raised to a vanishing power every world weighs the same: the weighted figures are the
    # unweighted ones, so the exponent given is the one used
    flat = _report("--players", "3", "--exponent", "1e-12")
    assert flat["exponent"] == 1e-12
    for key in ("card_brier", "suit_brier"):
        assert abs(flat["weighted"][key] - flat["unweighted"][key]) < 1e-9
    sharp = _report("--players", "3", "--temperature", "3", "--exponent", "1")
    assert sharp["unweighted"] == default["unweighted"]
    assert sharp["weighted"] != default["weighted"]


def test_a_temperature_of_zero_is_a_usage_error() -> None:
    proc = _run("--temperature", "0")
    assert proc.returncode == 2
    assert "--temperature and --exponent must be positive" in proc.stderr
    assert "Traceback" not in proc.stderr
