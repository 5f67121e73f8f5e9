"""Do the printed intervals and LOS mean what they say? Measured on real tournaments.

Usage: ``.venv/bin/python benchmarks/calibration.py [--tournaments 120] [--deal-sets 2,3,5,10,20,50]
[--fields k3,ordered] [--methods standings] [--workers 2] [--cache FILE] [--json | --markdown]``

Under the null (identical bundled ``random`` bots: every true rating is 0) it plays tournaments of
the largest deal-set count (``calibration_games``: the tournament's own schedule, the bundled bots
in process) and reads the standings off each prefix of 2, 3, 5, ... deal sets (the schedule plays
deal set by deal set and deal seeds do not depend on how many follow, so a prefix *is* the smaller
tournament). For each size it reports

* coverage: the share of the printed 95% intervals that hold the true rating, and
* false separation: the share of ordered pairs whose LOS is above 97.5%,

each with a 95% Wilson interval for its own binomial uncertainty. Under a known ordering
(``greedy``, ``lowcard``, ``random``) the truth is the fit to one very long tournament, and the
report adds how often LOS > 97.5% names the right pair order (power) or the wrong one.
``--methods`` compares the candidate interval methods on the same games (docs/ratings.md).

Fields: ``k2`` … ``k5`` are 2, 3, 4, 5 random bots at tables of as many; ``-ind`` deals every
game afresh instead of duplicate deals; ``ordered`` is greedy, lowcard and random at tables of 3.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from pathlib import Path
from typing import Any, Final

from bootstrap import bootstrap_ratings
from calibration_games import Field, GameCache, null_field, play_tournament

from craits.ratings.bradley_terry import bradley_terry
from craits.ratings.intervals import clustered_ratings
from craits.ratings.results import ScoredGame
from craits.ratings.standings import compute_standings

NULL_FIELDS: Final = {
    "k2": null_field(2, 2),
    "k3": null_field(3, 3),
    "k4": null_field(4, 4),
    "k5": null_field(5, 5),
    "k3-ind": null_field(3, 3, duplicate=False),
    "k2-ind": null_field(2, 2, duplicate=False),
}
ORDERED: Final = Field((("greedy", "greedy"), ("lowcard", "lowcard"), ("random", "random")), 3)
TRUTH_DEAL_SETS: Final = 600
SEED_BASE: Final = 1000


def tournaments_of(field: Field, deal_sets: int, seeds: Sequence[int], cache: GameCache,
                   workers: int) -> list[list[ScoredGame]]:
    """The played tournaments of ``field`` (from the cache, else played ``workers`` at a time)."""
    keys = [field.key(deal_sets, s) for s in seeds]
    missing = [s for s, k in zip(seeds, keys, strict=True) if cache.get(k) is None]
    if missing:
        with ProcessPoolExecutor(workers) as pool:
            played = pool.map(play_tournament, [field] * len(missing),
                              [deal_sets] * len(missing), missing)
            for seed, results in zip(missing, played, strict=True):
                cache.put(field.key(deal_sets, seed), results)
    return [cache.get(k) or [] for k in keys]


@dataclass(frozen=True, slots=True)
class Printed:
    """What a method prints for one tournament: ratings, bounds, LOS, and whether it printed
    intervals at all (``enough``)."""

    ratings: Sequence[float]
    low: Sequence[float]
    high: Sequence[float]
    los: Sequence[Sequence[float]]
    enough: bool
    shown: Sequence[bool] | None = None
    """Which bots got an interval (None: all); a bot whose deal sets never differed gets none
    (``RatingIntervals.fixed``), and a zero-width "interval" must not count as holding the truth."""


Method = Callable[[Sequence[ScoredGame], Sequence[str]], Printed]


def _bootstrap(results: Sequence[ScoredGame], bots: Sequence[str]) -> Printed:
    b = bootstrap_ratings(results, bots, seed=1)
    return Printed(b.ratings, b.low, b.high, b.los, True)


def _clustered(method: str) -> Method:
    """A deal-set interval method printing at every size (the standings stop below a minimum:
    this shows why)."""
    def run(results: Sequence[ScoredGame], bots: Sequence[str]) -> Printed:
        c = clustered_ratings(results, bots, method=method, min_units=2)
        return Printed(c.ratings, c.low, c.high, c.los, c.enough, [not f for f in c.fixed])
    return run


def _standings(results: Sequence[ScoredGame], bots: Sequence[str]) -> Printed:
    """Exactly what ``compute_standings`` (the standings table and --json) prints."""
    s = compute_standings(results, bots)
    rows = {row.bot: row for row in s.rows}
    ratings = [rows[b].rating for b in bots]
    low = [_or(rows[b].low, rows[b].rating) for b in bots]
    high = [_or(rows[b].high, rows[b].rating) for b in bots]
    los = [[s.los[a][b] if a != b else 0.5 for b in bots] for a in bots]
    return Printed(ratings, low, high, los, s.enough, [rows[b].low is not None for b in bots])


def _or(value: float | None, default: float) -> float:
    return default if value is None else value


METHODS: Final[dict[str, Method]] = {
    "standings": _standings,
    "bootstrap": _bootstrap,
    "sandwich": _clustered("sandwich"),
    "jackknife": _clustered("jackknife"),
}


@dataclass(slots=True)
class Rate:
    """A proportion counted tournament by tournament. The events of one tournament are not
    independent (ratings are centred, so when one interval misses another often does), so its
    uncertainty is a Wilson interval on the *effective* count: the count divided by the design
    effect measured from the spread of the tournaments' own rates."""

    per_tournament: list[tuple[int, int]] = dataclass_field(default_factory=list)

    def add(self, hits: int, of: int) -> None:
        if of:
            self.per_tournament.append((hits, of))

    def to_dict(self) -> dict[str, Any] | None:
        hits = sum(k for k, _ in self.per_tournament)
        total = sum(n for _, n in self.per_tournament)
        if not total:
            return None
        p, t = hits / total, len(self.per_tournament)
        between = sum((k - p * n) ** 2 for k, n in self.per_tournament) * t / max(t - 1, 1)
        binomial = total * p * (1 - p)
        design = max(1.0, between / binomial) if binomial > 0 else 1.0
        return {"hits": hits, "of": total, "rate": p, "design_effect": round(design, 2),
                "ci95": wilson(p, total / design)}


@dataclass(slots=True)
class Cell:
    """Counts for one (field, method, deal sets) cell."""

    tournaments: int = 0
    printed: int = 0
    """Tournaments that printed intervals (the rest printed "not enough games")."""
    units: int = 0
    coverage: Rate = dataclass_field(default_factory=Rate)
    false_separation: Rate = dataclass_field(default_factory=Rate)
    """Ordered pairs with LOS > 97.5% whose true order is not that way (null: every pair)."""
    power: Rate = dataclass_field(default_factory=Rate)
    """Ordered pairs with LOS > 97.5% that are that way round in truth."""

    def add(self, printed: Printed, truth: Sequence[float], units: int) -> None:
        self.tournaments += 1
        self.units = units
        if not printed.enough:
            return
        self.printed += 1
        shown = printed.shown or [True] * len(truth)
        self.coverage.add(sum(lo <= t <= hi for t, lo, hi, s in zip(
            truth, printed.low, printed.high, shown, strict=True) if s), sum(shown))
        right = [0, 0]
        wrong = [0, 0]
        for i, ti in enumerate(truth):
            for j, tj in enumerate(truth):
                if i != j:
                    tally = right if ti > tj + 1e-9 else wrong
                    tally[0] += printed.los[i][j] > 0.975
                    tally[1] += 1
        self.false_separation.add(*wrong)
        self.power.add(*right)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"deal_set_units": self.units, "tournaments": self.tournaments,
                               "printed": self.printed}
        for name in ("coverage", "false_separation", "power"):
            rate = getattr(self, name).to_dict()
            if rate is not None:
                out[name] = rate
        return out


def wilson(p: float, n: float, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion ``p`` observed over ``n`` trials."""
    middle = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, middle - half), min(1.0, middle + half))


def calibrate(tournaments: Sequence[Sequence[ScoredGame]], bots: Sequence[str],
              truth: Sequence[float], sizes: Sequence[int], method: Method) -> dict[int, Cell]:
    """Each tournament's prefixes of ``sizes`` deal sets, read by ``method``, counted."""
    cells = {d: Cell() for d in sizes}
    for results in tournaments:
        for d in sizes:
            prefix = [r for r in results if r.deal_set < d]
            units = len({r.deal_set_key for r in prefix})
            cells[d].add(method(prefix, bots), truth, units)
    return cells


def truth_of(field: Field, cache: GameCache, workers: int) -> list[float]:
    """The ratings of a known field: the fit to one tournament of ``TRUTH_DEAL_SETS``."""
    (results,) = tournaments_of(field, TRUTH_DEAL_SETS, [1], cache, workers)
    fitted = bradley_terry(results, field.names)
    return [fitted[b] for b in field.names]


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Every asked field × method × size, as one JSON-ready report."""
    cache = GameCache(args.cache)
    sizes = sorted(args.deal_sets)
    seeds = range(SEED_BASE, SEED_BASE + args.tournaments)
    report: dict[str, Any] = {"tournaments": args.tournaments, "deal_sets": sizes, "fields": {}}
    for name in args.fields:
        field = ORDERED if name == "ordered" else NULL_FIELDS[name]
        truth = truth_of(field, cache, args.workers) if name == "ordered" else [0.0] * len(
            field.bots)
        tournaments = tournaments_of(field, sizes[-1], list(seeds), cache, args.workers)
        entry: dict[str, Any] = {
            "bots": [b for _, b in field.bots], "table_size": field.table_size,
            "duplicate": field.duplicate, "truth": truth, "methods": {},
        }
        for method in args.methods:
            started = time.perf_counter()
            cells = calibrate(tournaments, field.names, truth, sizes, METHODS[method])
            entry["methods"][method] = {
                "seconds": round(time.perf_counter() - started, 1),
                "sizes": {str(d): cell.to_dict() for d, cell in cells.items()},
            }
        report["fields"][name] = entry
    return report


def print_report(report: dict[str, Any]) -> None:
    """One table per field and method: coverage and false separation with Wilson intervals."""
    for name, entry in report["fields"].items():
        deal = "duplicate" if entry["duplicate"] else "independent"
        print(f"\n{name}: {', '.join(entry['bots'])} at tables of {entry['table_size']}, "
              f"{deal} deals, {report['tournaments']} tournaments")
        for method, result in entry["methods"].items():
            print(f"  {method} ({result['seconds']} s)")
            print("    deal sets  units  printed  coverage (95% CI)        "
                  "LOS>97.5% wrong (95% CI)   power")
            for d, cell in result["sizes"].items():
                print(f"    {d:>9}  {cell['deal_set_units']:>5}  {cell['printed']:>7}  "
                      f"{_rate(cell.get('coverage')):<24} {_rate(cell.get('false_separation')):<25}"
                      f"{_rate(cell.get('power'), short=True)}")


def print_markdown(report: dict[str, Any]) -> None:
    """The same tables in Markdown, one per field and method (docs/ratings.md quotes them)."""
    for name, entry in report["fields"].items():
        deal = "duplicate" if entry["duplicate"] else "independent"
        for method, result in entry["methods"].items():
            print(f"\n**{name}** ({', '.join(entry['bots'])} at tables of {entry['table_size']}, "
                  f"{deal} deals, {report['tournaments']} tournaments), {method}:\n")
            print("| deal sets | units | printed | coverage (95% CI) | LOS > 97.5% wrongly "
                  "(95% CI) | LOS > 97.5% rightly |")
            print("|---:|---:|---:|---|---|---:|")
            for d, cell in result["sizes"].items():
                print(f"| {d} | {cell['deal_set_units']} | {cell['printed']}/"
                      f"{cell['tournaments']} | {_rate(cell.get('coverage'))} | "
                      f"{_rate(cell.get('false_separation'))} | "
                      f"{_rate(cell.get('power'), short=True)} |")


def _rate(entry: dict[str, Any] | None, short: bool = False) -> str:
    if entry is None:
        return "not enough games" if not short else "-"
    if short:
        return f"{entry['rate']:.3f}"
    lo, hi = entry["ci95"]
    return f"{entry['rate']:.3f} ({lo:.3f}-{hi:.3f})"


def _int_list(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, got {text!r}"
                                         ) from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError("deal-set counts must be at least 1")
    return values


def _names(known: Sequence[str]) -> Callable[[str], list[str]]:
    def parse(text: str) -> list[str]:
        names = text.split(",")
        for n in names:
            if n not in known:
                raise argparse.ArgumentTypeError(f"unknown {n!r}; choose from {', '.join(known)}")
        return names
    return parse


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tournaments", type=int, default=120,
                        help="tournaments per field (default 120)")
    parser.add_argument("--deal-sets", type=_int_list, default=[2, 3, 5, 10, 20, 50],
                        help="deal-set counts to read, comma-separated (default 2,3,5,10,20,50)")
    fields = [*NULL_FIELDS, "ordered"]
    parser.add_argument("--fields", type=_names(fields), default=fields,
                        help=f"which fields, comma-separated (default all: {','.join(fields)})")
    parser.add_argument("--methods", type=_names(list(METHODS)), default=["standings"],
                        help="interval methods, comma-separated (default standings: what users "
                             f"see); candidates: {','.join(METHODS)}")
    parser.add_argument("--workers", type=int, default=2, help="processes playing games")
    parser.add_argument("--cache", type=Path, default=None,
                        help="JSON-lines file keeping played tournaments between runs")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    args = parser.parse_args(argv)
    if args.tournaments < 1 or args.workers < 1:
        parser.error("--tournaments and --workers must be at least 1")
    started = time.perf_counter()
    report = run(args)
    report["seconds"] = round(time.perf_counter() - started, 1)
    if args.json:
        print(json.dumps(report))
    elif args.markdown:
        print_markdown(report)
    else:
        print_report(report)
        print(f"\n{report['seconds']} s")


if __name__ == "__main__":
    main()
