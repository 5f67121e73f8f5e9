"""Game records in the store: bytes per full game, games recorded and rebuilt per second.

Usage: ``.venv/bin/python benchmarks/store_bench.py [--games 2000] [--json]``

Games are full 15-hand games of 4 seats under the standard rules, played by the random policy of
``craits.simulate`` (the most varied moves, so the least compressible), each move with an answer
time drawn from a log-normal fitted to the SDK bots' times in a real tournament (median 0.8 ms,
10% under 0.4 ms, 10% over 1.6 ms; stored to the microsecond like real ones). The games are
played first; then one process records them all into a fresh WAL store (``Store.record_game``,
one transaction each, as the runner does) and the clock measures only that. The file's size is
then divided by the games, which counts everything a game costs (its job, its row, its record,
SQLite's pages), beside the record alone. The recording rate is given per second of wall time
and per second of this process's CPU time (the same on a quiet machine; on a shared one the
second says what the store costs). Last, every game is read back as ``replay`` reads it
(``load_game``: decode, replay, check against the stored outcome).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from craits.engine import Game, Rules
from craits.engine.record import choice_of
from craits.report.stored import load_game
from craits.simulate import policy_rng
from craits.tournament.plan.config import config_from_dict
from craits.tournament.plan.schedule import Job
from craits.tournament.store.database import Store
from craits.tournament.store.game_records import FinishedGame, PlayLog
from craits.tournament.store.record_codec import encode

MEDIAN_MS, SIGMA = 0.8, 0.55


def played(job: Job) -> FinishedGame:
    """One whole random game of ``job``, with answer times, as the runner hands it over."""
    game = Game.new(Rules.from_json(job.rules_json), len(job.seats), job.seed)
    policy, clock = policy_rng(job.seed + job.rotation), random.Random(job.game_index)
    choices = []
    while not game.is_over:
        legal = game.legal_moves()
        move = policy.choice(legal)
        choices.append(choice_of(legal, move))
        game.apply(move)
    outcome = game.outcome
    assert outcome is not None
    n = len(choices)
    times = tuple(clock.lognormvariate(math.log(MEDIAN_MS), SIGMA) for _ in range(n))
    return FinishedGame(
        job.tournament_id, job.game_index, outcome.totals, outcome.places, (0,) * 4,
        (False,) * 4, time.time(), time.time(), PlayLog(choices=tuple(choices),
                                                      elapsed_ms=times,
                                                      decisions=tuple(range(1, n + 1))),
        {"hands_played": outcome.hands_played, "hand_scores": outcome.hand_scores,
         "pressure_points": outcome.pressure_points, "capped_hands": outcome.capped_hands,
         "decisions": n, "seconds": 1.0},
    )


def measure(games: int) -> dict[str, Any]:
    """Play ``games`` games, record them, read them back; sizes and rates."""
    config = config_from_dict({
        "name": "bench", "table_size": 4, "deal_sets": math.ceil(games / 4),
        "bots": [{"name": f"bot{i}", "bundled": "random"} for i in range(4)],
    }, ["random"])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.sqlite"
        with Store.open(path) as store:
            tid = store.create_tournament(config)
            jobs = store.jobs(tid)[:games]
            finished = [played(job) for job in jobs]
            empty = path.stat().st_size
            started, cpu = time.perf_counter(), time.process_time()
            for game in finished:
                store.record_game(game)
            recording = time.perf_counter() - started
            recording_cpu = time.process_time() - cpu
            started = time.perf_counter()
            for job in jobs:
                load_game(store, tid, job.game_index)
            reading = time.perf_counter() - started
            store.pragma("wal_checkpoint(TRUNCATE)")
        size = path.stat().st_size
    records = [len(encode(g.play)) for g in finished]
    moves = [len(g.play.choices) for g in finished]
    return {
        "games": games, "moves_mean": round(statistics.mean(moves)), "moves_max": max(moves),
        "record_bytes_mean": round(statistics.mean(records)), "record_bytes_max": max(records),
        "record_bytes_per_move": round(sum(records) / sum(moves), 2),
        "db_bytes_per_game": round((size - empty) / games),
        "recorded_per_s": round(games / recording),
        "recorded_per_cpu_s": round(games / recording_cpu),
        "rebuilt_per_s": round(games / reading, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    row = measure(args.games)
    if args.json:
        print(json.dumps(row))
        return
    for key, value in row.items():
        print(f"{key:>22}: {value}")


if __name__ == "__main__":
    main()
