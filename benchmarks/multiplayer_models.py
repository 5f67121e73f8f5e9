"""Bradley–Terry on pairs against Plackett–Luce on whole finishing orders, on real games.

Usage: ``.venv/bin/python benchmarks/multiplayer_models.py [--deal-sets 400] [--train 5,20,100]
[--cache FILE] [--json]``

Plays one long tournament per field (``calibration_games``: the tournament's schedule, bundled
bots in process): the three bundled bots at tables of 3, and with a second ``random`` at tables
of 4. The last quarter of its deal sets is held out; the rest is cut into blocks of ``--train``
deal sets (a small tournament each). Each block is fitted by both models, and the fits are scored
on the held-out deal sets by

* the log-likelihood per game of the whole finish under Plackett–Luce (the orders a tie allows,
  summed), the measure Plackett–Luce is fitted for, and
* the log-likelihood per pair of the pairwise results under Bradley–Terry, which is what the
  standings' LOS and expected scores claim.

Higher is better; equal strengths (every rating 0) give the baseline. The mean over blocks is
printed with its standard error.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from calibration_games import Field, GameCache
from calibration_games import play_tournament as play
from plackett_luce import finish_log_likelihood, plackett_luce

from craits.ratings.bradley_terry import bradley_terry
from craits.ratings.elo import expected_score
from craits.ratings.results import ScoredGame

FIELDS: Final = {
    "k3": Field((("greedy", "greedy"), ("lowcard", "lowcard"), ("random", "random")), 3),
    "k4": Field((("greedy", "greedy"), ("lowcard", "lowcard"), ("random", "random"),
                 ("random2", "random")), 4),
}
Model = Callable[[Sequence[ScoredGame], Sequence[str]], dict[str, float]]
MODELS: Final[dict[str, Model]] = {
    "equal": lambda results, bots: dict.fromkeys(bots, 0.0),
    "bradley_terry": bradley_terry,
    "plackett_luce": plackett_luce,
}


def pair_log_likelihood(result: ScoredGame, ratings: dict[str, float]) -> tuple[float, int]:
    """Σ over the finish's pairs of log P(their result) under Bradley–Terry, and the pairs."""
    total, pairs = 0.0, 0
    for a, b, score in result.pairs():
        p = expected_score(ratings[a] - ratings[b])
        total += score * math.log(p) + (1 - score) * math.log(1 - p)
        pairs += 1
    return total, pairs


def score(ratings: dict[str, float], held_out: Sequence[ScoredGame]) -> dict[str, float]:
    """Held-out log-likelihoods: of finishes per game, of pairwise results per pair."""
    finish = sum(finish_log_likelihood(r, ratings) for r in held_out) / len(held_out)
    pair_sums = [pair_log_likelihood(r, ratings) for r in held_out]
    pairs = sum(s for s, _ in pair_sums) / sum(n for _, n in pair_sums)
    return {"finish": finish, "pair": pairs}


def compare(results: Sequence[ScoredGame], bots: Sequence[str], deal_sets: int,
            train: int) -> dict[str, Any]:
    """Every model fitted on each block of ``train`` deal sets, scored on the held-out quarter."""
    cut = deal_sets - deal_sets // 4
    held_out = [r for r in results if r.deal_set >= cut]
    blocks = [[r for r in results if start <= r.deal_set < start + train]
              for start in range(0, cut - train + 1, train)]
    per_model: dict[str, dict[str, list[float]]] = {
        m: {"finish": [], "pair": []} for m in MODELS}
    for block in blocks:
        for name, model in MODELS.items():
            for measure, value in score(model(block, bots), held_out).items():
                per_model[name][measure].append(value)
    out: dict[str, Any] = {"blocks": len(blocks), "held_out_games": len(held_out)}
    for name, measures in per_model.items():
        out[name] = {m: _mean_se(v) for m, v in measures.items()}
    for measure in ("finish", "pair"):
        diffs = [p - b for p, b in zip(per_model["plackett_luce"][measure],
                                        per_model["bradley_terry"][measure], strict=True)]
        out[f"pl_minus_bt_{measure}"] = _mean_se(diffs)
    return out


def _mean_se(values: Sequence[float]) -> dict[str, float]:
    se = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else float("nan")
    return {"mean": statistics.fmean(values), "se": se}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deal-sets", type=int, default=400,
                        help="deal sets of each field's tournament (a quarter held out)")
    parser.add_argument("--train", default="5,20,100",
                        help="training block sizes in deal sets, comma-separated")
    parser.add_argument("--cache", type=Path, default=None,
                        help="JSON-lines file keeping played tournaments between runs")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    try:
        sizes = [int(v) for v in args.train.split(",")]
    except ValueError:
        parser.error(f"--train: expected numbers separated by commas, got {args.train!r}")
    cut = args.deal_sets - args.deal_sets // 4
    if min(sizes) < 1 or max(sizes) > cut // 2:
        parser.error(f"--train sizes must be between 1 and {cut // 2} (half the training part "
                     "of --deal-sets), so that each has at least two blocks")
    started = time.perf_counter()
    cache = GameCache(args.cache)
    report: dict[str, Any] = {"deal_sets": args.deal_sets, "fields": {}}
    for name, field in FIELDS.items():
        key = field.key(args.deal_sets, 7)
        results = cache.get(key)
        if results is None:
            results = play(field, args.deal_sets, 7)
            cache.put(key, results)
        report["fields"][name] = {
            "bots": list(field.names), "games": len(results),
            "train": {str(t): compare(results, field.names, args.deal_sets, t) for t in sizes},
        }
    report["seconds"] = round(time.perf_counter() - started, 1)
    if args.json:
        print(json.dumps(report))
        return
    for name, entry in report["fields"].items():
        print(f"\n{name}: {', '.join(entry['bots'])} ({entry['games']} games)")
        print("  train  blocks   log-lik per finish: equal / BT / PL      PL-BT (se)"
              "        per pair: equal / BT / PL      PL-BT (se)")
        for t, row in entry["train"].items():
            print(f"  {t:>5}  {row['blocks']:>6}   " + "   ".join(
                f"{row['equal'][m]['mean']:.4f} / {row['bradley_terry'][m]['mean']:.4f} / "
                f"{row['plackett_luce'][m]['mean']:.4f}   "
                f"{row[f'pl_minus_bt_{m}']['mean']:+.4f} ({row[f'pl_minus_bt_{m}']['se']:.4f})"
                for m in ("finish", "pair")))
    print(f"\n{report['seconds']} s")


if __name__ == "__main__":
    main()
