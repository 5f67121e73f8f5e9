"""Ladder throughput of ``craits contest serve`` with its tables on a Ray cluster (``--ray``)
beside the same number of local table worker processes (``--workers N``).

Usage::

    .venv/bin/python benchmarks/contest_ray_bench.py [--bots 4] [--seconds 60] [--rounds 2]
        [--workers 2] [--short]

The contest is set up as ``contest_workers_bench.py`` sets it up (init, add, serve, submit over
HTTP: sandboxed one-file bots, every version validated). A Ray cluster of one node (``ray start
--head`` on free ports, ``tests/ray/cluster.py``, with ``--workers`` CPUs) is started once;
then, ``rounds`` times with the two modes interleaved (a change in the machine's load falls on
both), ``serve --workers N`` and ``serve --ray ADDRESS --workers N`` each run on the same
directory: after their first game (warm-up: workers or actors started, the versions shipped,
the tables a stopped predecessor left replayed), the games recorded in the next ``seconds``
are counted. It prints games per second and the CPU seconds the service's own process spent
per game (on Ray the service records every game itself and takes the actors' messages; a
table worker records its own). No timing is asserted: it prints numbers.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from contest_setup import games_and_cpu
from contest_workers_bench import setup

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.ray.cluster import RayCluster  # the repository's root, just added


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--short", action="store_true", help="short games (rules short_game)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch) / "contest"
        setup(directory, args.bots, args.short)
        cluster = RayCluster(cpus=args.workers)
        try:
            modes = {"workers": ["--workers", str(args.workers)],
                     "ray": ["--ray", cluster.address, "--workers", str(args.workers)]}
            print(f"{args.bots} sandboxed bots, {'short' if args.short else 'standard'} games, "
                  f"{args.workers} tables at once, {args.seconds:.0f} s a run, "
                  f"{os.cpu_count()} CPUs", flush=True)
            results: dict[str, list[tuple[float, float]]] = {m: [] for m in modes}
            for round_ in range(1, args.rounds + 1):
                for mode, options in modes.items():
                    rate, cpu = games_and_cpu(directory, options, args.seconds)
                    results[mode].append((rate, cpu))
                    print(f"round {round_} {' '.join(options)}: {rate:.3f} games/s, service "
                          f"CPU {cpu * 1000:.0f} ms a game", flush=True)
        finally:
            cluster.stop()
        print("median over the rounds:")
        for mode, runs in results.items():
            print(f"  {mode}: {statistics.median(r for r, _ in runs):.3f} games/s, service CPU "
                  f"{statistics.median(c for _, c in runs) * 1000:.0f} ms a game")


if __name__ == "__main__":
    main()
