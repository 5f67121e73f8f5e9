"""Instructions per decision of the SDK's own work, counted by valgrind: repeatable, unlike time.

Usage: ``.venv/bin/python benchmarks/sdk_instructions.py [--games 3] [--bots random greedy]
[--json]``

What ``sdk_bench.py`` times (a bundled bot's ``Session`` handling its seat's packets: parsing,
the ``View``, ``decide``, the reply and its serialization), counted instead with ``valgrind
--tool=callgrind``, which counts what the CPU executes whatever else the machine does. The games
are recorded first (``--games`` and twice as many, both from the same seeds) into files, and a
program that only loads a file and handles its packets runs under callgrind for each: the
difference in instructions over the difference in decisions leaves out start-up, imports and
the first games' cache fills. To count other code, run with its sources first on the path
(``PYTHONPATH=BASE/server:BASE/sdk:BASE/bots``). Needs ``valgrind``; about a minute per bot.
"""

from __future__ import annotations

import argparse
import json
import pickle
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Final

from referee_instructions import CALLGRIND, parse
from sdk_bench import record_games

_PROGRAM: Final = """
import pickle, sys
sys.path.insert(0, {bench_dir!r})
import sdk_bench
with open({path!r}, "rb") as f:
    seats = pickle.load(f)
print("DECISIONS", sdk_bench.handle_all({bot!r}, seats))
"""


def count(path: Path, bot: str) -> tuple[int, int]:
    """(instructions, decisions) of handling the packets in ``path`` under callgrind."""
    program = _PROGRAM.format(bench_dir=str(Path(__file__).parent), path=str(path), bot=bot)
    proc = subprocess.run([*CALLGRIND, sys.executable, "-c", program],
                          capture_output=True, text=True, check=True)
    return parse(proc.stdout, proc.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3,
                        help="2-player games in the smaller run, 1-50 (the larger has twice "
                             "as many)")
    parser.add_argument("--bots", nargs="+", default=["random"])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if not 1 <= args.games <= 50:
        parser.error(f"--games must be 1 to 50, got {args.games}")
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed: apt-get install valgrind")
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for games in (args.games, 2 * args.games):
            paths.append(Path(tmp) / f"{games}.pickle")
            paths[-1].write_bytes(pickle.dumps(record_games(games, 2)))
        for bot in args.bots:
            small, large = count(paths[0], bot), count(paths[1], bot)
            rows[bot] = round((large[0] - small[0]) / (large[1] - small[1]))
    if args.json:
        print(json.dumps(rows))
        return
    for bot, per_decision in rows.items():
        print(f"{bot}: {per_decision:,} instructions per decision")


if __name__ == "__main__":
    main()
