"""The HTML report of a big tournament: seconds to write its index, and to open one game.

Usage: ``.venv/bin/python benchmarks/report_bench.py [--games 100000] [--bots 12] [--json]``

A round robin of ``bots`` bots at tables of 4 is stored with ``games`` recorded results (finishes
drawn at random; their records hold no moves, which the index never reads), then ``craits report``'s
``write_site`` writes the index and its pages of the list of games, without game viewers (the
default past 1,000 games); then the same with one game's viewer asked for, as ``--games N``
does (that game is a real 4-seat game, so its viewer can be built), and last ``tournament
show``'s standings alone, which both include. Each is timed on its own.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from store_bench import played

from craits.report.site import write_site
from craits.tournament.plan.config import config_from_dict
from craits.tournament.store.database import Store
from craits.tournament.store.game_records import FinishedGame


def fill(store: Store, games: int, bots: int) -> str:
    """A tournament of at least ``games`` scheduled games, the first ``games`` recorded."""
    meetings = math.comb(bots, 4) * 4
    config = config_from_dict({
        "name": "big", "table_size": 4, "deal_sets": math.ceil(games / meetings),
        "bots": [{"name": f"bot{i}", "bundled": "random"} for i in range(bots)],
    }, ["random"])
    tid = store.create_tournament(config)
    rng = random.Random(1)
    for index in range(games):
        if index == games // 2:
            job = store.job(tid, index)
            assert job is not None
            store.record_game(played(job))
            continue
        totals = tuple(rng.randrange(-50, 400) for _ in range(4))
        places = tuple(1 + sorted(totals).index(t) for t in totals)
        store.record_game(FinishedGame(tid, index, totals, places, (0,) * 4, (False,) * 4,
                                       0.0, 1.0, outcome={"hands_played": 15}))
    return tid


def measure(games: int, bots: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp, Store.open(Path(tmp) / "big.sqlite") as store:
        started = time.perf_counter()
        tid = fill(store, games, bots)
        filled = time.perf_counter() - started
        out = Path(tmp) / "site"
        started = time.perf_counter()
        files = write_site(store, tid, out)
        index = time.perf_counter() - started
        size = sum(f.stat().st_size for f in files)
        started = time.perf_counter()
        write_site(store, tid, out, games=[games // 2])
        one_game = time.perf_counter() - started
        started = time.perf_counter()
        store.standings(tid)
        standings = time.perf_counter() - started
    return {"games": games, "bots": bots, "fill_s": round(filled, 1),
            "index_s": round(index, 2), "files": len(files), "mb_written": round(size / 1e6, 1),
            "index_and_one_game_s": round(one_game, 2), "standings_s": round(standings, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--bots", type=int, default=12)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    row = measure(args.games, args.bots)
    if args.json:
        print(json.dumps(row))
        return
    for key, value in row.items():
        print(f"{key:>12}: {value}")


if __name__ == "__main__":
    main()
