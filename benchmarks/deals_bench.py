"""The live pages' fair-play check in a big store: ``Store.deals_in_play(tid, games)`` with and
without the store's seed index (``jobs_by_seed``, schema version 6).

Usage: ``.venv/bin/python benchmarks/deals_bench.py [--jobs 90000] [--asked 16] [--rounds 6]``

One tournament of four bundled bots at a table of four, so each deal is played at four seatings
that share its seed; the first half of its jobs are marked done and the next ``asked`` running
(only the jobs' statuses: the check reads no game), and a page asks about those ``asked`` live
games, as the tournament's live pages do at each request (``LiveRule``). A copy of the store is
set back to version 5 (its seed index dropped), as a store written before the index, and both
are opened to read (a reader never migrates). The check is timed on each in turn, ``rounds``
times of ``--calls`` calls, so that the machine's load falls on both alike; both must give the
same answer. Last the old copy is opened to write, which migrates it: what building the index
costs, once.
"""

from __future__ import annotations

import argparse
import math
import shutil
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from craits.tournament.plan.config import config_from_dict
from craits.tournament.store.database import Store


def build(path: Path, jobs: int, asked: int) -> tuple[str, list[int]]:
    """The store of ``jobs`` jobs, half done; its tournament and the running games' indices."""
    config = config_from_dict({
        "name": "bench", "table_size": 4, "deal_sets": math.ceil(jobs / 4),
        "bots": [{"name": f"bot{i}", "bundled": "random"} for i in range(4)],
    }, ["random"])
    with Store.open(path) as store:
        tid = store.create_tournament(config)
    half = jobs // 2
    live = list(range(half, half + asked))
    with sqlite3.connect(path) as db:
        db.execute("UPDATE jobs SET status='done' WHERE game_index < ?", (half,))
        db.execute(f"UPDATE jobs SET status='running' WHERE game_index IN "
                   f"({','.join('?' * len(live))})", live)
    db.close()
    return tid, live


def set_back(path: Path) -> None:
    """Make ``path`` a store as version 5 wrote it: no seed index."""
    with sqlite3.connect(path) as db:
        db.execute("DROP INDEX jobs_by_seed")
        db.execute("PRAGMA user_version=5")
    db.close()


def timed(store: Store, tid: str, live: list[int], calls: int) -> list[float]:
    """Milliseconds of each of ``calls`` checks."""
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        store.deals_in_play(tid, live)
        times.append((time.perf_counter() - start) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=90_000)
    parser.add_argument("--asked", type=int, default=16, help="live games asked about")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--calls", type=int, default=20, help="checks in each round")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        new, old = Path(tmp) / "new.sqlite", Path(tmp) / "old.sqlite"
        tid, live = build(new, args.jobs, args.asked)
        shutil.copy(new, old)
        set_back(old)
        variants = {"schema 6 (index)": Store.open(new, mode="read"),
                    "schema 5 (no index)": Store.open(old, mode="read")}
        answers = {name: store.deals_in_play(tid, live) for name, store in variants.items()}
        assert len(set(map(str, answers.values()))) == 1, answers  # the same games held
        times: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(args.rounds):
            for name, store in variants.items():
                times[name] += timed(store, tid, live, args.calls)
        for store in variants.values():
            store.close()
        print(f"{args.jobs:,} jobs, {args.asked} live games asked about "
              f"({len(answers['schema 6 (index)'])} held), {args.rounds} x {args.calls} checks "
              "each, interleaved")
        for name, ms in times.items():
            deciles = statistics.quantiles(ms, n=10)
            print(f"  {name:20} median {statistics.median(ms):8.3f} ms, p10 {deciles[0]:8.3f}, "
                  f"p90 {deciles[-1]:8.3f}, max {max(ms):8.3f}")
        start = time.perf_counter()
        Store.open(old, mode="write").close()  # migrates: builds the index
        print(f"  migrating the schema 5 copy (building the index): "
              f"{time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
