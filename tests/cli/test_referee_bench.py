"""Smoke tests of the referee benchmarks: they run end to end and ``--json`` rows are complete.

Numbers are never asserted (they belong in docs/benchmarks.md); only that every row is there and
every rate and latency was measured.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the referee benchmarks' smoke runs

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _run(script: str, *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args], capture_output=True, text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.slow
def test_referee_bench_with_lean_and_sdk_bots() -> None:
    rows = json.loads(_run("referee_bench.py", "--seconds", "0.5", "--rounds", "2",
                           "--tables", "1", "--json"))
    assert [(r["tables"], r["bots"]) for r in rows] == [(1, "lean"), (1, "sdk")]
    for row in rows:
        assert row["raw_rt_per_s"] > 0 and row["referee_decisions_per_s"] > 0
        assert 0 < row["referee_p50_us"] <= row["referee_p99_us"]
        assert row["message_bytes"] > 100
        assert row["rounds"] == 2 and 0 < row["ratio_min"] <= row["ratio"] <= row["ratio_max"]


def test_referee_cpu_bench() -> None:
    rows = json.loads(_run("referee_cpu_bench.py", "--games", "2", "--runs", "1", "--json"))
    assert [r["mode"] for r in rows] == ["1 table", "2 tables"]
    assert all(r["decisions"] > 500 and r["cpu_us_per_decision"] > 0 for r in rows)


def test_referee_instructions_program_and_parsing() -> None:
    # valgrind itself is not run here (minutes, and not on every machine): what is checked is
    # the program it would count and the reading of its summary
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import referee_instructions as ri
    finally:
        sys.path.remove(str(BENCHMARKS))
    out = subprocess.run([sys.executable, "-c", ri.program(1)], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    assert ri.parse(out, "==7== Collected : 123456789\n")[1] > 300
    assert ri.parse("DECISIONS 12\n", "==7== Collected : 345\n") == (345, 12)
    with pytest.raises(RuntimeError, match="unexpected valgrind output"):
        ri.parse("DECISIONS 12\n", "valgrind: command not understood")


@pytest.mark.slow
def test_referee_tail_times_every_part_and_the_bot() -> None:
    result = json.loads(_run("referee_tail.py", "--tables", "2", "--seconds", "0.5", "--json"))
    assert result["tables"] == 2 and result["decisions"] > 50
    assert result["decisions_per_s"] > 0
    parts = ["total", "before_write", "write_to_arrival", "before_resume"]
    for name in parts:
        p = result[name]
        assert 0 <= p["p50_us"] <= p["p90_us"] <= p["p99_us"]
    total = result["total"]
    assert 0 < total["median_decisions_mean_us"] <= total["slowest_1pct_mean_us"]
    # the three parts add up to the total, decision by decision, so their means do too
    slowest = sum(result[name]["slowest_1pct_mean_us"] for name in parts[1:])
    assert abs(slowest - result["total"]["slowest_1pct_mean_us"]) <= 3
    assert 0 < result["bot_work"]["p50_us"] <= result["bot_work"]["p99_us"]


@pytest.mark.slow
def test_referee_bench_two_process_kinds_and_a_baseline_checkout() -> None:
    root = BENCHMARKS.parent  # this checkout as its own baseline: the option's plumbing
    rows = json.loads(_run("referee_bench.py", "--seconds", "0.5", "--rounds", "1",
                           "--tables", "1", "--bots", "lean2", "js", "--baseline", str(root),
                           "--json"))
    assert [r["bots"] for r in rows] == ["lean2", "js", "sdk-base"]
    assert all(r["referee_decisions_per_s"] > 0 and r["bot_cpu_us"] > 0 for r in rows)


def test_referee_bench_refuses_a_baseline_that_is_no_checkout(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(BENCHMARKS / "referee_bench.py"), "--baseline",
                           str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "no sdk/craits_sdk there" in proc.stderr


@pytest.mark.slow
def test_sdk_bench_and_the_programs_sdk_instructions_counts(tmp_path: Path) -> None:
    out = json.loads(_run("sdk_bench.py", "--games", "1", "--repeat", "1", "--bots", "random",
                          "--json"))
    assert out["decisions"] > 300
    assert [r["work"] for r in out["rows"]] == ["parse only", "random: parse, view, decide, reply"]
    assert all(r["us_per_decision"] > 0 for r in out["rows"])
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import referee_instructions as ri
        import sdk_bench
        import sdk_instructions as si
    finally:
        sys.path.remove(str(BENCHMARKS))
    packets = tmp_path / "packets.pickle"
    packets.write_bytes(pickle.dumps(sdk_bench.record_games(1, 2)))
    for program in (si.handling(packets, "lowcard"), si._INPROCESS.format(games=1)):
        done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                              timeout=120, check=True)
        assert ri.parse(done.stdout, "==7== Collected : 1000\n")[1] > 300
