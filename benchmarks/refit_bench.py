"""What a refit of the contest's board costs as the games pile up: reading every game and fitting
them all (the ladder until issue 31's refit), against the game cache of ``craits.contest.refit``.

Usage: ``.venv/bin/python benchmarks/refit_bench.py [--sizes 1000:16,10000:50,100000:50]
[--full-up-to 100000] [--memory]``

Each size is ``GAMES:VERSIONS``: a real contest store (SQLite, the service's schema) is filled
with that many synthetic games (strengths drawn once; deal sets of 2 to 4 random versions, a
game per cyclic seating, places by strength plus noise), the versions two per contestant so
that every second one has a predecessor and a verdict. Then, timed apart:

* ``full``: what the ladder's refresh did after every table: ``scored_games`` (every game read
  and parsed), ``board.board_rows`` (the fit with its intervals) and ``verdicts.judge``;
* ``cold``: the cache's first refit (the service starting on a store of that many games):
  ``GameCache.read`` of everything, then ``refit_rows`` and ``refit_verdicts``;
* ``warm``: the cache's refit after one more deal set: the read of its games, the fit and
  the verdicts, which a contest pays every ``[ladder] refit_s`` at most.

``--memory`` runs each once more under ``tracemalloc``: the peak Python memory of a full
refit, and the cache's bytes kept per game (its columns) and its peak during a warm refit.
Sizes above ``--full-up-to`` skip the full refit (at a million games it holds every game as
Python objects). CPU seconds of this process (``time.process_time``); the machine's load
shows in them only as cache effects. Seeded: the same command fills the same games.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from craits.contest.board import board_rows
from craits.contest.ladderstore import scored_games
from craits.contest.refit import GameCache, refit_rows, refit_verdicts
from craits.contest.store import ContestStore, NewVersion, Version
from craits.contest.verdicts import judge, predecessors
from craits.contest.versions import VersionState

PROVISIONAL = 10


def fill(store: ContestStore, games: int, versions: int, seed: int) -> list[Version]:
    """``games`` synthetic games among ``versions`` rated versions (two per contestant)."""
    rng = random.Random(seed)
    rated = []
    for c in range((versions + 1) // 2):
        contestant = store.add_contestant(f"c{c}", f"digest{c}", 0.0)
        for number in range(min(2, versions - 2 * c)):
            version, _ = store.record_upload(contestant.id, NewVersion(
                f"{c:032x}{number:032x}", "bot.py", "python bot.py", "python", 1, 10), 0.0)
            rated.append(store.set_state(version.id, VersionState.RATED, 0.0))
    deal_sets(store, [v.id for v in rated], games, rng)
    return rated


def deal_sets(store: ContestStore, ids: list[int], games: int, rng: random.Random) -> None:
    """Record deal sets until ``games`` games, the rows the ladder writes (only what the
    refit reads is filled in: seats and places; the record is empty)."""
    strength = {v: rng.gauss(0, 1) for v in ids}
    written = 0
    while written < games:
        tables: list[tuple[int, str]] = []
        rows: list[tuple[int, int, str, str]] = []
        with store.transaction() as db:
            first = db.execute("SELECT COALESCE(MAX(id), 0) FROM ladder_tables").fetchone()[0]
            while written < games and len(rows) < 20_000:
                versions = rng.sample(ids, rng.randint(2, 4))
                table = first + len(tables) + 1
                tables.append((table, json.dumps(versions)))
                for rotation in range(len(versions)):
                    seats = versions[rotation:] + versions[:rotation]
                    score = [strength[v] + rng.gauss(0, 1.5) for v in seats]
                    order = sorted(range(len(seats)), key=lambda s: -score[s])
                    places = [0] * len(seats)
                    for place, seat in enumerate(order, start=1):
                        places[seat] = place
                    rows.append((table, rotation, json.dumps(seats), json.dumps(places)))
                    written += 1
            db.executemany("INSERT INTO ladder_tables (id, versions, reason, state, "
                           "created_at) VALUES (?, ?, 'bench', 'done', 0)", tables)
            db.executemany("INSERT INTO games (table_id, rotation, game_id, seats, totals, "
                           "places, strikes, forfeited, faulted, record, outcome, started, "
                           "finished) VALUES (?, ?, 'g', ?, ?, ?, '[]', '[]', '[]', x'', '{}', 0, "
                           "0)",
                           [(t, r, s, p, p) for t, r, s, p in rows])
            db.executemany("INSERT INTO game_seats (game, version_id, faulted) SELECT games.id, "
                           "value, 0 FROM games, json_each(games.seats) WHERE table_id = ?",
                           [(t,) for t, _ in tables])


def full_refit(store: ContestStore, playing: list[Version]) -> int:
    """The ladder's refresh before the cache: every game read, the fit and the verdicts."""
    games = scored_games(store)
    rows = board_rows(games, playing, store.contestants(), PROVISIONAL)
    judge(games, rows, predecessors(store, [int(r["version_id"]) for r in rows]))
    return len(rows)


def cached_refit(store: ContestStore, cache: GameCache, playing: list[Version]) -> int:
    """The refit of ``contest.refit``: the new games read, the fit and the verdicts."""
    cache.read(store)
    rows = refit_rows(cache, None, playing, store.contestants(), PROVISIONAL)
    refit_verdicts(cache, None, rows, predecessors(store, [int(r["version_id"]) for r in rows]))
    return len(rows)


def cpu(call: Callable[[], Any]) -> float:
    start = time.process_time()
    call()
    return time.process_time() - start


def peak(call: Callable[[], Any]) -> int:
    """Peak bytes Python allocated during ``call`` beyond what was held before it."""
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    call()
    top = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return top - base


def measure(games: int, versions: int, full: bool, memory: bool, seed: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as directory:
        store = ContestStore.open(Path(directory) / "contest.db")
        start = time.perf_counter()
        playing = fill(store, games, versions, seed)
        filled = time.perf_counter() - start
        ids = [v.id for v in playing]
        out: dict[str, Any] = {"games": games, "versions": versions, "fill_s": filled}
        if full:
            out["full_s"] = cpu(lambda: full_refit(store, playing))
        cache = GameCache()
        out["cold_s"] = cpu(lambda: cached_refit(store, cache, playing))
        rng = random.Random(seed + 1)
        warm = []
        for _ in range(3):
            deal_sets(store, ids, 3, rng)
            warm.append(cpu(lambda: cached_refit(store, cache, playing)))
        out["warm_s"] = min(warm)
        cache.read(store)  # the last deal sets' tables, finished, into the columns
        out["cache_bytes_per_game"] = cache.bytes() / cache.games
        if memory:
            if full:
                out["full_peak_mb"] = peak(lambda: full_refit(store, playing)) / 1e6
            deal_sets(store, ids, 3, rng)
            out["warm_peak_mb"] = peak(lambda: cached_refit(store, cache, playing)) / 1e6
        store.close()
        return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000:16,10000:16,10000:50,100000:16,100000:50",
                        help="GAMES:VERSIONS, comma separated")
    parser.add_argument("--full-up-to", type=int, default=100_000,
                        help="the largest size also refitted the old way (read all, fit all)")
    parser.add_argument("--memory", action="store_true", help="also peak memory (tracemalloc)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = []
    for size in args.sizes.split(","):
        games, versions = (int(x) for x in size.split(":"))
        result = measure(games, versions, games <= args.full_up_to, args.memory, args.seed)
        results.append(result)
        if not args.json:
            full = f"{result['full_s']:8.2f}" if "full_s" in result else "       -"
            line = (f"{games:>9,} games {versions:>3} versions  full {full} s  cache cold "
                    f"{result['cold_s']:7.2f} s  warm {result['warm_s']:6.3f} s  "
                    f"{result['cache_bytes_per_game']:5.1f} B/game kept")
            if "warm_peak_mb" in result:
                full_peak = (f"{result['full_peak_mb']:7.1f}" if "full_peak_mb" in result
                             else "      -")
                line += (f"  peak MB: full {full_peak}, warm "
                         f"{result['warm_peak_mb']:5.1f}")
            print(line, flush=True)
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
