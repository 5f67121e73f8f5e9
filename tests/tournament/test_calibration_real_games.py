"""The ratings' calibration through real games: ``benchmarks/calibration.py`` (and the model
comparison of ``benchmarks/multiplayer_models.py``) end to end on a small null field.

The tournaments are the tournament's own schedule played by three bundled ``random`` bots in
process, so every true rating is 0; what is read off them is ``compute_standings``, the code
behind the standings table and ``--json``. With a dozen tournaments this cannot measure 95% to
the digit (docs/ratings.md has the full tables), but it does catch intervals that are not made
from the deal sets' spread: the naive per-pair variance would miss the truth in about a third
of these tournaments, not in one or two.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # calibration through real games

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def run(script: str, *args: str) -> dict[str, object]:
    proc = subprocess.run([sys.executable, str(BENCHMARKS / script), *args, "--json"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    data: dict[str, object] = json.loads(proc.stdout)
    return data


@pytest.mark.slow
def test_a_small_null_calibration_through_real_games() -> None:
    report = run("calibration.py", "--fields", "k3", "--tournaments", "12",
                 "--deal-sets", "3,6,12", "--workers", "1")
    fields = report["fields"]
    assert isinstance(fields, dict)
    sizes = fields["k3"]["methods"]["standings"]["sizes"]
    assert sizes["3"]["printed"] == 0 and "coverage" not in sizes["3"]  # "not enough games"
    for d in ("6", "12"):
        cell = sizes[d]
        assert cell["deal_set_units"] == int(d) and cell["printed"] == cell["tournaments"] == 12
        assert cell["coverage"]["of"] == 36 and cell["false_separation"]["of"] == 72
        assert cell["coverage"]["hits"] >= 32, cell
        assert cell["false_separation"]["hits"] <= 5, cell
        low, high = cell["coverage"]["ci95"]
        assert low <= cell["coverage"]["rate"] <= high


def test_the_model_comparison_runs_and_reports_both_measures() -> None:
    report = run("multiplayer_models.py", "--deal-sets", "8", "--train", "3")
    fields = report["fields"]
    assert isinstance(fields, dict) and set(fields) == {"k3", "k4"}
    row = fields["k4"]["train"]["3"]
    assert row["blocks"] == 2 and row["held_out_games"] == 2 * 4  # 2 deal sets of 4 seatings
    for model in ("equal", "bradley_terry", "plackett_luce"):
        assert row[model]["finish"]["mean"] < 0 and row[model]["pair"]["mean"] < 0
