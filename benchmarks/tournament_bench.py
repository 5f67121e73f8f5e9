"""Tournament throughput with remote bots: games and decisions per second, end to end.

Usage: ``.venv/bin/python benchmarks/tournament_bench.py [--deal-sets 4] [--table-size 3]
[--concurrency 1 4 8] [--json]``

Each run is a real tournament (``run_tournament``): an embedded gRPC referee, one process per
bundled bot (greedy, random, lowcard), tables played ``concurrency`` at a time, every game
recorded in a fresh SQLite database with its record. Decisions are counted in the stored outcomes.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from craits.referee import bridge
from craits.tournament.config import ConfigError, default_config
from craits.tournament.runner import run_tournament
from craits.tournament.store import Store

BOTS = ("greedy", "random", "lowcard")


def one_run(deal_sets: int, table_size: int, concurrency: int) -> dict[str, Any]:
    """Play one tournament in a temp dir and measure it."""
    config = dataclasses.replace(
        default_config(BOTS, BOTS), table_size=table_size, deal_sets=deal_sets,
        concurrency=concurrency, max_tables_per_bot=concurrency,
    )
    with tempfile.TemporaryDirectory() as tmp, Store.open(Path(tmp) / "t.sqlite") as store:
        tid = store.create_tournament(config)
        started = time.perf_counter()
        bridge.run(run_tournament, store, tid, Path(tmp) / "logs")
        seconds = time.perf_counter() - started
        games = store.tournament(tid).jobs["done"]
        decisions = sum(_decisions(store, tid, i) for i in range(games))
    return {"table_size": table_size, "concurrency": concurrency, "games": games,
            "seconds": round(seconds, 2), "games_per_s": round(games / seconds, 2),
            "decisions_per_s": round(decisions / seconds)}


def _decisions(store: Store, tid: str, index: int) -> int:
    """The decisions of one recorded game, as its stored outcome counts them."""
    row = store.game_record(tid, index)
    return 0 if row is None else int(row.outcome["decisions"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deal-sets", type=int, default=4)
    parser.add_argument("--table-size", type=int, default=3)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 8])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    try:
        rows = [one_run(args.deal_sets, args.table_size, c) for c in args.concurrency]
    except ConfigError as exc:
        parser.error(str(exc))
    if args.json:
        print(json.dumps(rows))
        return
    print("table_size | concurrency | games | seconds | games/s | decisions/s")
    for r in rows:
        print(f"{r['table_size']} | {r['concurrency']} | {r['games']} | {r['seconds']} | "
              f"{r['games_per_s']} | {r['decisions_per_s']}")


if __name__ == "__main__":
    main()
