"""Memory over a long tournament: the runner's (referee included) and the bots' resident memory.

Usage::

    .venv/bin/python benchmarks/soak.py --minutes 25 [--bots 12] [--table-size 4]
        [--concurrency 16] [--interval 15] [--out soak.csv]
    .venv/bin/python benchmarks/soak.py --minutes 2 --tracemalloc   # what grew, by line

The default mode plays a real tournament as a user would (``python -m craits tournament run``,
bundled bots in copies, short games) and samples every ``interval`` seconds the resident set
(``VmRSS``) of the runner process, which embeds the referee, and the sum over its bot processes,
with the games recorded so far; after ``minutes`` it stops the run with SIGTERM, which craits
treats as Ctrl-C (the tournament is left paused). The ``--tracemalloc`` mode plays the same
tournament in this process with ``tracemalloc`` on and prints the allocation sites that grew
most between the first sample taken after warm-up and the last.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path

import trio

from craits.referee import bridge
from craits.tournament.plan.config import TournamentConfig, config_from_dict
from craits.tournament.run.runner import RunOptions, run_tournament
from craits.tournament.store.database import Store

KINDS = ("greedy", "random", "lowcard")


def soak_config(bots: int, table_size: int, concurrency: int) -> dict[str, object]:
    """A round robin of ``bots`` copies of the bundled bots, short games, many tables."""
    return {
        "name": "soak", "table_size": table_size, "deal_sets": 6, "concurrency": concurrency,
        "max_tables_per_bot": concurrency, "rules": {"short_game": True},
        "bots": [{"name": f"{KINDS[i % 3]}-{i}", "bundled": KINDS[i % 3]} for i in range(bots)],
    }


def toml_text(config: dict[str, object]) -> str:
    """``soak_config`` as the TOML a user would write."""
    lines = [f'name = "{config["name"]}"']
    lines += [f"{k} = {config[k]}" for k in
              ("table_size", "deal_sets", "concurrency", "max_tables_per_bot")]
    lines += ["[rules]", "short_game = true"]
    for bot in config["bots"]:  # type: ignore[attr-defined]
        lines += ["[[bots]]", f'name = "{bot["name"]}"', f'bundled = "{bot["bundled"]}"']
    return "\n".join(lines) + "\n"


def rss_kb(pid: int) -> int:
    """Resident set of one process in KiB (0 once it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid: int) -> list[int]:
    """Every descendant of ``pid`` (the bots, and whatever they started)."""
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                kids = (task / "children").read_text().split()
            except OSError:
                continue
            found += [int(k) for k in kids]
            todo += [int(k) for k in kids]
    return found


def games_done(db: Path) -> int:
    """Games recorded so far, read as ``craits tournament list`` would."""
    try:
        with Store.open(db, mode="read") as store:
            return sum(info.jobs.get("done", 0) for info in store.tournaments())
    except Exception:
        return 0


def soak(args: argparse.Namespace) -> None:
    """Run the tournament as a user would and print one CSV line per sample."""
    with tempfile.TemporaryDirectory() as tmp:
        cfg, db = Path(tmp) / "soak.toml", Path(args.db or Path(tmp) / "soak.sqlite")
        cfg.write_text(toml_text(soak_config(args.bots, args.table_size, args.concurrency)))
        proc = subprocess.Popen([sys.executable, "-m", "craits", "tournament", "run", str(cfg),
                                 "--db", str(db), "--quiet"], stdout=subprocess.DEVNULL)
        out = open(args.out, "w") if args.out else sys.stdout  # noqa: SIM115
        print("seconds,games,runner_rss_mb,bots_rss_mb,bots", file=out, flush=True)
        started = time.monotonic()
        try:
            while proc.poll() is None and time.monotonic() - started < args.minutes * 60:
                time.sleep(args.interval)
                bots = children(proc.pid)
                print(f"{time.monotonic() - started:.0f},{games_done(db)},"
                      f"{rss_kb(proc.pid) / 1024:.1f},"
                      f"{sum(rss_kb(b) for b in bots) / 1024:.1f},{len(bots)}",
                      file=out, flush=True)
        finally:
            proc.send_signal(signal.SIGTERM)  # SIGINT is ignored in a background job
            proc.wait(timeout=120)
            size = db.stat().st_size if db.exists() else 0
            print(f"# database {size / 1e6:.1f} MB for {games_done(db)} games", file=out,
                  flush=True)


def traced(args: argparse.Namespace) -> None:
    """Play in this process with tracemalloc; print the sites that grew after warm-up."""
    config = _config(args)
    tracemalloc.start(8)
    snaps: list[tracemalloc.Snapshot] = []
    stop = threading.Event()

    def sample() -> None:
        stop.wait(args.warmup)
        while not stop.is_set():
            snaps.append(tracemalloc.take_snapshot())
            print(f"sample {len(snaps)}: traced {tracemalloc.get_traced_memory()[0] / 1e6:.1f}"
                  f" MB, rss {rss_kb(os.getpid()) / 1024:.1f} MB", file=sys.stderr, flush=True)
            stop.wait(args.interval)

    with tempfile.TemporaryDirectory() as tmp, Store.open(Path(tmp) / "t.sqlite") as store:
        tid = store.create_tournament(config)
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        bridge.run(_for_a_while, store, tid, Path(tmp) / "logs", args.minutes * 60)
        stop.set()
        sampler.join()
        snaps.append(tracemalloc.take_snapshot())
        print(f"games: {store.tournament(tid).jobs['done']}")
    diff = snaps[-1].compare_to(snaps[0], "traceback")
    for stat in diff[:args.top]:
        print(f"{stat.size_diff / 1024:+.1f} KiB, {stat.count_diff:+d} blocks")
        for line in stat.traceback.format()[-8:]:
            print("   ", line)


async def _for_a_while(store: Store, tid: str, logs: Path, seconds: float) -> None:
    with trio.move_on_after(seconds):
        await run_tournament(store, tid, RunOptions(logs))


def _config(args: argparse.Namespace) -> TournamentConfig:
    data = soak_config(args.bots, args.table_size, args.concurrency)
    return config_from_dict(data, KINDS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=25.0)
    parser.add_argument("--bots", type=int, default=12)
    parser.add_argument("--table-size", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--interval", type=float, default=15.0, help="seconds between samples")
    parser.add_argument("--out", help="CSV file (default stdout)")
    parser.add_argument("--db", help="keep the database here (default: a temp file)")
    parser.add_argument("--tracemalloc", action="store_true",
                        help="play in this process and print what grew, by allocation site")
    parser.add_argument("--warmup", type=float, default=30.0, help="seconds before the first"
                        " tracemalloc sample")
    parser.add_argument("--top", type=int, default=15, help="sites to print")
    args = parser.parse_args()
    (traced if args.tracemalloc else soak)(args)


if __name__ == "__main__":
    main()
