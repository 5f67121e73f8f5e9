"""Ladder throughput of ``craits contest serve`` by where its tables are played: in the web
server's own process (``--workers 0``, as the ladder did before table workers) or in 1, 2, ...
table worker processes (``--workers N``).

Usage::

    .venv/bin/python benchmarks/contest_workers_bench.py [--bots 4] [--seconds 60]
        [--rounds 2] [--modes 0,1,2] [--short] [--dir DIR]

It sets a contest up as an organiser and contestants do (``craits contest init``, ``add``,
``serve``, then ``submit`` over HTTP of one-file bots playing the bundled greedy, lowcard and
random bots: every table sandboxed), waits until every version is rated, then for each mode
in turn, ``rounds`` times (the modes interleaved, so that a change in the machine's load falls
on all of them): starts ``serve --workers MODE`` on the same directory, waits for its first
game (warm-up: workers started, the table a stopped predecessor left replayed), and counts
the games recorded in the next ``seconds``. It prints, per run and then per mode (median over
the rounds): games per second, and the CPU seconds the service's own process spent per game
(its ``utime + stime`` from ``/proc``: what the web process pays for the games, which the table
workers take off it). No timing is asserted: it prints numbers.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

from contest_setup import (
    Service,
    cycle,
    enter,
    games_and_cpu,
    init,
    submit,
    wait_until_rated,
)


def setup(directory: Path, bots: int, short: bool) -> None:
    """A contest with ``bots`` rated versions (the bundled bots in turn, each its own file)."""

    def edit(text: str) -> str:
        text = text.replace("per_window = 10", "per_window = 1000")
        if short:
            text = text.replace('preset = "standard"', 'preset = "standard"\nshort_game = true')
        return text

    init(directory, "workers bench", edit)
    entrants = enter(directory, cycle(bots), directory.parent)
    service = Service(directory, ["--workers", "1"], echo=True)
    try:
        for entrant in entrants:
            submit(service.url, entrant)
        wait_until_rated(directory, bots)
    finally:
        service.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--modes", default="0,1,2",
                        help="the --workers values to compare (0: in the service's process)")
    parser.add_argument("--short", action="store_true", help="short games (rules short_game)")
    parser.add_argument("--dir", type=Path, help="where the contest goes (default: a temporary "
                        "directory, removed afterwards)")
    args = parser.parse_args()
    modes = [int(m) for m in args.modes.split(",")]
    with tempfile.TemporaryDirectory() as scratch:
        directory = args.dir or Path(scratch) / "contest"
        setup(directory, args.bots, args.short)
        print(f"{args.bots} sandboxed bots, {'short' if args.short else 'standard'} games, "
              f"{args.seconds:.0f} s a run, {os.cpu_count()} CPUs", flush=True)
        results: dict[int, list[tuple[float, float]]] = {m: [] for m in modes}
        for round_ in range(1, args.rounds + 1):
            for mode in modes:
                rate, cpu = games_and_cpu(directory, ["--workers", str(mode)], args.seconds)
                results[mode].append((rate, cpu))
                print(f"round {round_} --workers {mode}: {rate:.3f} games/s, service CPU "
                      f"{cpu * 1000:.0f} ms a game", flush=True)
        print("median over the rounds:")
        for mode in modes:
            rate = statistics.median(r for r, _ in results[mode])
            cpu = statistics.median(c for _, c in results[mode])
            where = "in the service's process" if mode == 0 else f"{mode} worker process(es)"
            print(f"  --workers {mode} ({where}): {rate:.3f} games/s, service CPU "
                  f"{cpu * 1000:.0f} ms a game")


if __name__ == "__main__":
    main()
