"""How much duplicate deals reduce the games needed to separate two bots.

Usage: ``.venv/bin/python benchmarks/duplicate_bench.py [--units 300] [--a greedy --b lowcard]``

Plays 2-player games in process (the engine and the SDK bots, no network): with duplicate deals,
a unit is one deal played twice with the seats swapped; with independent deals, a unit is two
games with fresh deals (seats alternating). A unit's score is A's share of the pairwise points.
The games needed to tell A from B at 95% confidence (two-sided z test of the mean unit score
against 0.5) are ``2 * (1.96 * sd / (mean - 0.5))**2``. Variance reduction = 1 - var_dup/var_ind.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from craits.engine import preset
from craits_bots.registry import BUNDLED, load
from craits_sdk import play_game


def _a_score(totals: tuple[int, ...], a_seat: int) -> float:
    a, b = totals[a_seat], totals[1 - a_seat]
    return 1.0 if a < b else 0.5 if a == b else 0.0


def _game(a: str, b: str, seed: int, a_seat: int) -> float:
    bots = [load(a)(), load(b)()] if a_seat == 0 else [load(b)(), load(a)()]
    outcome = play_game(bots, preset("standard"), seed, game_id=f"dup-{seed}-{a_seat}")
    return _a_score(outcome.totals, a_seat)


def units(a: str, b: str, n: int, duplicate: bool) -> list[float]:
    """Per-unit scores of A (two games per unit)."""
    out = []
    for u in range(n):
        s1, s2 = (u, u) if duplicate else (2 * u + 10**6, 2 * u + 1 + 10**6)
        out.append((_game(a, b, s1, 0) + _game(a, b, s2, 1)) / 2)
    return out


def games_needed(scores: list[float]) -> float:
    """Games for a 95% two-sided separation at the observed mean and spread."""
    mean, sd = statistics.fmean(scores), statistics.stdev(scores)
    return float("inf") if mean == 0.5 else 2 * (1.96 * sd / (mean - 0.5)) ** 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--units", type=int, default=300)
    parser.add_argument("--a", default="greedy")
    parser.add_argument("--b", default="lowcard")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.units < 2:
        parser.error("--units must be at least 2 (a variance needs two)")
    for name in (args.a, args.b):
        if name not in BUNDLED:
            parser.error(f"no bundled bot {name!r}; known: {', '.join(BUNDLED)}")
    started = time.perf_counter()
    dup = units(args.a, args.b, args.units, duplicate=True)
    ind = units(args.a, args.b, args.units, duplicate=False)
    report = {
        "a": args.a, "b": args.b, "units": args.units,
        "duplicate": {"mean": statistics.fmean(dup), "var": statistics.variance(dup),
                      "games_needed": games_needed(dup)},
        "independent": {"mean": statistics.fmean(ind), "var": statistics.variance(ind),
                        "games_needed": games_needed(ind)},
        "seconds": time.perf_counter() - started,
    }
    report["variance_reduction"] = 1 - report["duplicate"]["var"] / report["independent"]["var"]
    if args.json:
        print(json.dumps(report))
        return
    for kind in ("duplicate", "independent"):
        r = report[kind]
        print(f"{kind:>11}: mean score of {args.a} {r['mean']:.3f}, variance per unit "
              f"{r['var']:.4f}, games to separate at 95%: {r['games_needed']:.0f}")
    print(f"variance reduction {report['variance_reduction']:.0%} "
          f"({2 * args.units * 2} games in {report['seconds']:.1f}s)")


if __name__ == "__main__":
    main()
