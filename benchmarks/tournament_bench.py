"""Tournament throughput, end to end: both lanes, one or more worker processes, and the store.

Usage: ``.venv/bin/python benchmarks/tournament_bench.py [--deal-sets 8] [--table-size 3]
[--lanes grpc inprocess] [--workers 1 2] [--concurrency 4 8] [--short] [--ray ADDRESS] [--json]``

Each run is a real tournament (``run_tournament``) of greedy, random and lowcard, every game
recorded in a fresh SQLite database with its record. The ``grpc`` lane plays them as bundled
bots: an embedded gRPC referee and one process per bot, in each worker; the ``inprocess`` lane as
``python = "module:Class"`` bots inside each worker, with no referee server at all. With one
worker the run process plays; with more, worker processes play and the run process records.
With ``--ray ADDRESS`` the workers are actors on that Ray cluster instead (``raytables``), one
per worker asked for, even one.
Decisions are counted in the games' outcomes. CPU per decision is this process's and its
children's (the bot processes, the workers), steadier than games/s on a shared machine; on Ray
the actors' CPU is not counted.

Last, the single writer's ceiling: every game of the last run recorded again, one transaction
each as the runner does, into a fresh store: games per second, no play at all.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

from craits.engine import Rules
from craits.referee import bridge
from craits.tournament.plan.config import BotSpec, ConfigError, TournamentConfig, default_config
from craits.tournament.run.ray_pool import RayCluster
from craits.tournament.run.runner import RunOptions, run_tournament
from craits.tournament.store.database import Store
from craits.tournament.store.game_records import FinishedGame

BOTS = ("greedy", "random", "lowcard")
TARGETS = {
    "greedy": "craits_bots.greedy:GreedyBot",
    "random": "craits_bots.random:RandomBot",
    "lowcard": "craits_bots.lowcard:LowCardBot",
}


class KeepingStore(Store):
    """A store that also keeps every game it records, to record them again elsewhere."""

    kept: list[FinishedGame]

    def record_game(self, game: FinishedGame) -> bool:
        self.kept.append(game)
        return super().record_game(game)


def config_for(lane: str, deal_sets: int, table_size: int, concurrency: int,
               short: bool) -> TournamentConfig:
    """The benchmark's tournament in one lane (a fixed seed: every run plays the same games)."""
    config = dataclasses.replace(
        default_config(BOTS, BOTS), seed=1, table_size=table_size, deal_sets=deal_sets,
        concurrency=concurrency, max_tables_per_bot=concurrency,
        rules=Rules(short_game=short),
    )
    if lane == "inprocess":
        bots = tuple(BotSpec(b.name, "python", python=TARGETS[b.name]) for b in config.bots)
        config = dataclasses.replace(config, bots=bots)
    return config


def one_run(config: TournamentConfig, lane: str, workers: int, ray: RayCluster | None = None
            ) -> tuple[dict[str, Any], list[FinishedGame]]:
    """Play one tournament in a temp dir and measure it (joining the cluster included)."""
    with tempfile.TemporaryDirectory() as tmp:
        store = KeepingStore(Store.open(Path(tmp) / "t.sqlite")._db)
        store.kept = []
        tid = store.create_tournament(config, tournament_id="bench")
        started, cpu = time.perf_counter(), _cpu_s()
        bridge.run(run_tournament, store, tid,
                   RunOptions(Path(tmp) / "logs", workers=workers, ray=ray))
        seconds, cpu = time.perf_counter() - started, _cpu_s() - cpu
        games = store.tournament(tid).jobs["done"]
        decisions = sum(int(g.outcome["decisions"]) for g in store.kept)
        store.close()
    row = {"lane": lane + (" on Ray" if ray else ""), "workers": workers,
           "table_size": config.table_size,
           "concurrency": config.concurrency, "games": games, "seconds": round(seconds, 2),
           "games_per_s": round(games / seconds, 1), "decisions_per_s": round(decisions / seconds),
           "cpu_us_per_decision": round(cpu * 1e6 / max(1, decisions), 1)}
    return row, store.kept


def _cpu_s() -> float:
    """CPU seconds of this process and of its children that have ended (bot processes and
    workers are waited for by the end of a run): on a shared machine, steadier than time."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def store_ceiling(config: TournamentConfig, games: list[FinishedGame]) -> dict[str, Any]:
    """Record ``games`` again into a fresh store file, one transaction each."""
    with tempfile.TemporaryDirectory() as tmp, Store.open(Path(tmp) / "t.sqlite") as store:
        store.create_tournament(config, tournament_id="bench")
        started = time.perf_counter()
        for game in games:
            store.record_game(game)
        seconds = time.perf_counter() - started
    moves = sum(len(g.play.choices) for g in games)
    return {"store_games": len(games), "moves_per_game": round(moves / max(1, len(games))),
            "seconds": round(seconds, 2), "games_per_s": round(len(games) / seconds, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deal-sets", type=int, default=8)
    parser.add_argument("--table-size", type=int, default=3)
    parser.add_argument("--lanes", nargs="+", choices=("grpc", "inprocess"),
                        default=["grpc", "inprocess"])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[4],
                        help="tables per worker (each value is a run)")
    parser.add_argument("--short", action="store_true", help="short games (default: full)")
    parser.add_argument("--ray", metavar="ADDRESS",
                        help="play on this Ray cluster (HOST:PORT of its head)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    ray = RayCluster(args.ray) if args.ray else None
    rows: list[dict[str, Any]] = []
    try:
        for lane in args.lanes:
            for concurrency in args.concurrency:
                config = config_for(lane, args.deal_sets, args.table_size, concurrency,
                                    args.short)
                for workers in args.workers:
                    row, games = one_run(config, lane, workers, ray)
                    rows.append(row)
        ceiling = store_ceiling(config, games)
    except ConfigError as exc:
        parser.error(str(exc))
    if args.json:
        print(json.dumps({"runs": rows, "store": ceiling}))
        return
    print("lane | workers | table_size | concurrency | games | seconds | games/s | decisions/s | "
          "CPU µs/decision")
    for r in rows:
        print(f"{r['lane']} | {r['workers']} | {r['table_size']} | {r['concurrency']} | "
              f"{r['games']} | {r['seconds']} | {r['games_per_s']} | {r['decisions_per_s']} | "
              f"{r['cpu_us_per_decision']}")
    print(f"store alone: {ceiling['store_games']} games of ~{ceiling['moves_per_game']} moves "
          f"in {ceiling['seconds']} s: {ceiling['games_per_s']} games/s")


if __name__ == "__main__":
    main()
