"""Instructions per decision of the referee's trio side, counted by valgrind: repeatable to ~0.1%.

Usage: ``.venv/bin/python benchmarks/referee_instructions.py [--games 4] [--json]``

Timings on a shared 2-core machine drift by 10-20% within minutes, which hides any change worth
less than that. Instruction counts do not drift: ``valgrind --tool=callgrind`` counts what the
CPU executes, whatever else the machine is doing. This runs ``referee_cpu_bench.py``'s 20-table
mode (every game at once through a real ``BotHub`` and fake sessions) under callgrind twice,
with ``--games`` and twice as many games, and reports the difference divided by the difference
in decisions: interpreter start-up and imports cancel out. About a quarter of the count is the
fake sessions' own work (building each reply and handing it over with ``run_sync_soon``), the
same in every version. Needs ``valgrind`` (Debian package ``valgrind``); takes a few minutes.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

CALLGRIND: Final = ("valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null")

_PROGRAM: Final = """
import sys, trio
sys.path.insert(0, {bench_dir!r})
import referee_cpu_bench
decisions, _ = trio.run(referee_cpu_bench._run, {games}, True, False)
print("DECISIONS", decisions)
"""


def program(games: int) -> str:
    """Python source that plays ``games`` concurrent games and prints how many decisions."""
    return _PROGRAM.format(bench_dir=str(Path(__file__).parent), games=games)


def count(games: int) -> tuple[int, int]:
    """(instructions, decisions) of one run of ``games`` concurrent games under callgrind."""
    return count_program(program(games))


def count_program(source: str) -> tuple[int, int]:
    """(instructions, decisions) of the Python ``source`` under callgrind; the program prints
    ``DECISIONS n`` (``sdk_instructions.py`` counts its programs with it too)."""
    proc = subprocess.run(
        [*CALLGRIND, sys.executable, "-c", source],
        capture_output=True, text=True, check=True,
    )
    return parse(proc.stdout, proc.stderr)


def require_valgrind() -> None:
    """Exit with how to install valgrind when it is missing."""
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed: apt-get install valgrind")


def parse(stdout: str, stderr: str) -> tuple[int, int]:
    """(instructions, decisions) from the program's output and callgrind's summary."""
    collected = re.search(r"Collected : (\d+)", stderr)
    decisions = re.search(r"DECISIONS (\d+)", stdout)
    if collected is None or decisions is None:
        raise RuntimeError(f"unexpected valgrind output:\n{stderr[-2000:]}")
    return int(collected.group(1)), int(decisions.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4,
                        help="games in the smaller run, 1-100 (the larger has twice as many)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if not 1 <= args.games <= 100:
        parser.error(f"--games must be 1 to 100, got {args.games}")
    require_valgrind()
    small, large = count(args.games), count(2 * args.games)
    decisions = large[1] - small[1]
    per_decision = (large[0] - small[0]) / decisions
    if args.json:
        row = {"decisions": decisions, "instructions_per_decision": round(per_decision)}
        print(json.dumps(row))
    else:
        print(f"{per_decision:,.0f} instructions per decision ({decisions} decisions)")


if __name__ == "__main__":
    main()
