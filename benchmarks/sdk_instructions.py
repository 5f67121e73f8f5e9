"""Instructions per decision of the SDK's own work, counted by valgrind: repeatable, unlike time.

Usage: ``.venv/bin/python benchmarks/sdk_instructions.py [--games 3] [--bots random greedy]
[--inprocess] [--json]``

What ``sdk_bench.py`` times (a bundled bot's ``Session`` handling its seat's packets: parsing,
the ``View``, ``decide``, the reply and its serialization), counted instead with ``valgrind
--tool=callgrind``, which counts what the CPU executes whatever else the machine does. The games
are recorded first (``--games`` and twice as many, both from the same seeds) into files, and a
program that only loads a file and handles its packets runs under callgrind for each: the
difference in instructions over the difference in decisions leaves out start-up, imports and
the first games' cache fills. To count other code, run with its sources first on the path
(``PYTHONPATH=BASE/server:BASE/sdk:BASE/bots``). Needs ``valgrind``; about a minute per bot.

``--inprocess`` counts the in-process road instead: ``craits_sdk.play_game`` of 3-player games
of greedy, random and lowcard (the engine's ``observe`` and ``apply``, a ``View`` of each
observation, the bots), per decision, as the in-process lane of a tournament plays them.
"""

from __future__ import annotations

import argparse
import json
import pickle
import tempfile
from pathlib import Path
from typing import Final

from referee_instructions import count_program, require_valgrind
from sdk_bench import record_games

_PROGRAM: Final = """
import pickle, sys
sys.path.insert(0, {bench_dir!r})
import sdk_bench
with open({path!r}, "rb") as f:
    seats = pickle.load(f)
print("DECISIONS", sdk_bench.handle_all({bot!r}, seats))
"""


_INPROCESS: Final = """
from craits_bots.registry import load
from craits_sdk import Bot, play_game
classes, decisions, move_for = [load(n) for n in ("greedy", "random", "lowcard")], 0, Bot.move_for
def counted(bot, view):
    global decisions
    decisions += 1
    return move_for(bot, view)
Bot.move_for = counted
for seed in range({games}):
    play_game([cls() for cls in classes], seed=seed)
print("DECISIONS", decisions)
"""


def handling(path: Path, bot: str) -> str:
    """The program that handles the packets in ``path`` with ``bot``."""
    return _PROGRAM.format(bench_dir=str(Path(__file__).parent), path=str(path), bot=bot)


def handling_rows(games: int, bots: list[str]) -> dict[str, int]:
    """Instructions per decision of each bot's session handling recorded games' packets."""
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for number in (games, 2 * games):
            paths.append(Path(tmp) / f"{number}.pickle")
            paths[-1].write_bytes(pickle.dumps(record_games(number, 2)))
        for bot in bots:
            rows[bot] = per_decision(count_program(handling(paths[0], bot)),
                                     count_program(handling(paths[1], bot)))
    return rows


def per_decision(small: tuple[int, int], large: tuple[int, int]) -> int:
    """Instructions per decision between two runs."""
    return round((large[0] - small[0]) / (large[1] - small[1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3,
                        help="2-player games in the smaller run, 1-50 (the larger has twice "
                             "as many)")
    parser.add_argument("--bots", nargs="+", default=["random"])
    parser.add_argument("--inprocess", action="store_true",
                        help="count play_game of greedy, random and lowcard instead")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if not 1 <= args.games <= 50:
        parser.error(f"--games must be 1 to 50, got {args.games}")
    require_valgrind()
    if args.inprocess:
        rows = {"inprocess": per_decision(count_program(_INPROCESS.format(games=args.games)),
                                          count_program(_INPROCESS.format(games=2 * args.games)))}
    else:
        rows = handling_rows(args.games, args.bots)
    if args.json:
        print(json.dumps(rows))
        return
    for work, instructions in rows.items():
        print(f"{work}: {instructions:,} instructions per decision")


if __name__ == "__main__":
    main()
