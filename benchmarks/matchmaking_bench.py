"""How many games the contest's matchmaker needs to find the true order, against simpler policies.

Usage: ``.venv/bin/python benchmarks/matchmaking_bench.py [--runs 30] [--scenarios
spaced,field] [--table-size 4] [--luck 0] [--variant top_weight=3 ...] [--json] [--quick]``

Sixteen simulated versions of known strength (``craits.contest.simulation``: Plackett–Luce
finishes, one deal set per table, a game per cyclic seating) are played by three policies in
the same run, each from the same truth:

* ``random``: uniformly random tables;
* ``fewest-near``: the simple heuristic, the version with the fewest games first (ties at
  random) with the versions nearest it by rating (the same estimate the matchmaker reads);
* ``matchmaker``: ``craits.contest.matchmaking.Matchmaker`` with its defaults;
* each ``--variant KEY=VALUE[,KEY=VALUE]`` adds the matchmaker with those ``MatchConfig``
  fields changed, named by them: a variant is screened on the same truths and seeds as the
  defaults, and plays from the same random streams (a variant that changes nothing plays the
  defaults' games exactly).

After every deal set the board is the project's Bradley–Terry fit of all games so far
(``craits.ratings.bradley_terry``), and a run records the games after which the board first
reached Kendall tau >= 0.9 against the true order, and first had the exact top 3 (in order).
Scenarios: ``spaced``, versions 40 Elo apart (600 from first to last); ``field``, strengths
drawn afresh each run from a normal law of 150 Elo spread, as a real field is (a crowded
middle, a few far ahead or behind). Medians over ``--runs`` runs, and each policy's median as a
ratio of random's (the target: at most 2/3 for tau, 1/2 for the top 3). The cost: CPU per
decision of each policy, the matchmaker's CPU per decision for fields of several sizes (what
the service pays per claimed table), and the CPU of refitting the published board
(``clustered_ratings``, the fit with its intervals) for the same sizes. Runs are seeded: the
same command prints the same games.
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import statistics
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, fields, replace
from typing import Any

from craits.contest.estimate import FieldEstimate
from craits.contest.matchmaking import MatchConfig, Matchmaker, Version
from craits.contest.simulation import kendall_tau, play_deal_set, top_exact
from craits.ratings.bradley_terry import Tally, centre, fit, pair_entries
from craits.ratings.intervals import clustered_ratings
from craits.ratings.results import ScoredGame

POLICIES = ("random", "fewest-near", "matchmaker")
TABLES_PER_HOUR = 60
"""The contest's pace in the simulation: the band's hour is this many deal sets."""


@dataclass
class Outcome:
    """One policy's run: games to each target (None: not held at the horizon) and its CPU."""

    tau_games: int | None = None
    top_games: int | None = None
    decisions: int = 0
    cpu: float = 0.0
    most_share: float = 0.0
    """The most games any version played in one simulated hour, over the mean."""


Policy = Callable[[list[Version], list[ScoredGame], float], tuple[str, ...]]


def random_policy(size: int, rng: random.Random) -> Policy:
    """Uniformly random tables."""
    def choose(versions: list[Version], games: list[ScoredGame], now: float
               ) -> tuple[str, ...]:
        return tuple(rng.sample([v.id for v in versions], size))
    return choose


def fewest_near_policy(size: int, rng: random.Random) -> Policy:
    """Fewest games first, with the nearest versions by the online rating as opponents."""
    estimate = FieldEstimate()
    seen = [0]
    scheduled: dict[str, int] = {}

    def choose(versions: list[Version], games: list[ScoredGame], now: float
               ) -> tuple[str, ...]:
        for game in games[seen[0]:]:
            estimate.add(game)
        seen[0] = len(games)
        ids = [v.id for v in versions]
        skills = estimate.fitted(ids)
        low = min(scheduled.get(v, 0) for v in ids)
        seed = rng.choice([v for v in ids if scheduled.get(v, 0) == low])
        mu = skills[seed].mu
        others = sorted((v for v in ids if v != seed),
                        key=lambda v: (abs(skills[v].mu - mu), rng.random()))
        table = (seed, *others[:size - 1])
        for v in table:
            scheduled[v] = scheduled.get(v, 0) + size
        return table
    return choose


def matchmaker_policy(size: int, seed: int, variant: str = "") -> Policy:
    """The contest's matchmaker (``table_sizes`` the run's size, the ``variant``'s fields as it
    says, everything else default)."""
    maker = Matchmaker(replace(MatchConfig(table_sizes=(size,)), **variant_fields(variant)),
                       seed=seed)
    seen = [0]

    def choose(versions: list[Version], games: list[ScoredGame], now: float
               ) -> tuple[str, ...]:
        fresh = games[seen[0]:]
        seen[0] = len(games)
        return maker.next_tables(versions, fresh, now)[0].versions
    return choose


def variant_fields(variant: str) -> dict[str, Any]:
    """``MatchConfig`` fields from ``KEY=VALUE[,KEY=VALUE]`` (values as Python literals: ``3``,
    ``0.5``, ``(0.25, 4.0)``: read as the keyword arguments of a call, so a tuple's commas are
    its own); an unknown field or a value that is not a literal is refused with the known
    fields."""
    known = [f.name for f in fields(MatchConfig)]
    usage = f"KEY=VALUE,... with KEY one of {', '.join(known)} and VALUE a Python literal"
    try:
        call = ast.parse(f"variant({variant})", mode="eval").body
        assert isinstance(call, ast.Call) and not call.args
        pairs = [(kw.arg, ast.literal_eval(kw.value)) for kw in call.keywords]
    except (SyntaxError, ValueError, AssertionError):
        raise SystemExit(f"bad variant {variant!r}: {usage}") from None
    out = {key: value for key, value in pairs if key in known}
    if len(out) < len(pairs):
        unknown = [key for key, _ in pairs if key not in known]
        raise SystemExit(f"bad variant {variant!r}: unknown {unknown}; {usage}")
    return out


def policy_of(name: str, size: int, seed: int, rng: random.Random) -> Policy:
    """The policy called ``name``: one of ``POLICIES``, or ``matchmaker KEY=VALUE,...``."""
    base, _, variant = name.partition(" ")
    if base == "random" and not variant:
        return random_policy(size, rng)
    if base == "fewest-near" and not variant:
        return fewest_near_policy(size, rng)
    if base == "matchmaker":
        return matchmaker_policy(size, seed, variant)
    raise SystemExit(f"unknown policy {name!r}")


REFIT_TOLERANCE = 1e-4
"""Newton's stopping step for the board's refits (nats). From the previous deal set's fit the
steps go about 1e-2, 1e-5, 1e-11 (each near the square of the one before): stopping after a
step below 1e-4 leaves every rating within 1e-5 Elo of ``fit``'s default (the most over two
runs of 1,000 refits), which takes one more step to say so. A third less CPU per run, and
the same games to each target in every run compared (a tie closer than that would differ)."""


@dataclass
class Board:
    """The Bradley–Terry board, refitted after every deal set from the previous fit."""

    ids: list[str]
    tally: Tally = field(init=False)
    ratings: list[float] = field(init=False)

    def __post_init__(self) -> None:
        self.tally = Tally(len(self.ids))
        self.ratings = [0.0] * len(self.ids)
        self.index = {v: i for i, v in enumerate(self.ids)}

    def add(self, games: Sequence[ScoredGame]) -> dict[str, float]:
        for game in games:
            self.tally.add(pair_entries(game, self.index))
        self.ratings = fit(self.tally, start=self.ratings, tolerance=REFIT_TOLERANCE)
        return dict(zip(self.ids, centre(self.ratings), strict=True))


def run_policy(name: str, truth: dict[str, float], size: int, seed: int, horizon: int,
               luck: float) -> Outcome:
    """Play ``horizon`` games of deal sets chosen by policy ``name`` (a variant draws from
    its base policy's streams)."""
    base = name.partition(" ")[0]
    rng = random.Random(f"{seed}:{base}:policy")
    play_rng = random.Random(f"{seed}:{base}:games")
    policy = policy_of(name, size, seed, rng)
    ids = sorted(truth)
    board = Board(ids)
    games: list[ScoredGame] = []
    played = dict.fromkeys(ids, 0)
    hourly: dict[int, dict[str, int]] = {}
    out = Outcome()
    deal_set = 0
    tau_missed = top_missed = 0
    while len(games) < horizon:
        now = deal_set * 3600.0 / TABLES_PER_HOUR
        versions = [Version(v, 0.0, played[v]) for v in ids]
        start = time.process_time()
        table = policy(versions, games, now)
        out.cpu += time.process_time() - start
        out.decisions += 1
        new = play_deal_set(table, truth, play_rng, deal_set, len(games), luck)
        deal_set += 1
        games.extend(new)
        hour = hourly.setdefault(int(now // 3600), {})
        for v in table:
            played[v] += size
            hour[v] = hour.get(v, 0) + size
        estimate = board.add(new)
        if kendall_tau(estimate, truth) < 0.9:
            tau_missed = len(games)
        if not top_exact(estimate, truth, 3):
            top_missed = len(games)
    # The games after which the board held the target at every later deal set.
    out.tau_games = None if tau_missed == len(games) else tau_missed + size
    out.top_games = None if top_missed == len(games) else top_missed + size
    full = [h for h in hourly.values() if sum(h.values()) >= TABLES_PER_HOUR * size * size]
    if full:
        out.most_share = max(max(h.get(v, 0) for v in ids) * len(ids) / sum(h.values())
                             for h in full)
    return out


def truth_of(scenario: str, n: int, run: int, seed: int) -> dict[str, float]:
    """True strengths (Elo) of ``n`` versions named so that their names say nothing."""
    rng = random.Random(f"{seed}:{scenario}:{run}:truth")
    if scenario == "spaced":
        values = [40.0 * i for i in range(n)]
    elif scenario == "field":
        values = [rng.gauss(0.0, 150.0) for _ in range(n)]
    else:
        raise SystemExit(f"unknown scenario {scenario!r}: spaced or field")
    rng.shuffle(values)
    return {f"v{i:02d}": value for i, value in enumerate(values)}


def median_or_none(values: Sequence[int | None]) -> float | None:
    """The median counting a run that never reached the target as above every other."""
    if not values:
        return None
    big = float("inf")
    m = statistics.median([big if v is None else float(v) for v in values])
    return None if m == big else m


def _tau_games(outcome: Outcome) -> int | None:
    return outcome.tau_games


def _top_games(outcome: Outcome) -> int | None:
    return outcome.top_games


def ratio_of(mine: Sequence[int | None], theirs: Sequence[int | None]) -> float | None:
    """One policy's median games over random's (None when either median is unreached)."""
    m, r = median_or_none(mine), median_or_none(theirs)
    return m / r if m and r else None


def bootstrap(mine: Sequence[int | None], theirs: Sequence[int | None], seed: int,
              resamples: int = 2000) -> list[float | None]:
    """The 5th and 95th percentiles of the ratio of medians over ``resamples`` resamplings of
    the runs (with replacement, the same runs for both policies, since run ``i`` of each
    plays the same truth): how far the ratio moves with the luck of which runs were drawn."""
    rng = random.Random(f"{seed}:bootstrap")
    n = len(mine)
    ratios = []
    for _ in range(resamples):
        pick = [rng.randrange(n) for _ in range(n)]
        ratio = ratio_of([mine[i] for i in pick], [theirs[i] for i in pick])
        ratios.append(float("inf") if ratio is None else ratio)
    ratios.sort()
    low, high = ratios[resamples // 20], ratios[resamples - 1 - resamples // 20]
    return [None if x == float("inf") else x for x in (low, high)]


def refit_cost(sizes: Sequence[int], deal_sets_per_version: int, table: int,
               seed: int) -> list[dict[str, float]]:
    """CPU seconds of one refit of the published board with its intervals, per field size."""
    rows = []
    for n in sizes:
        rng = random.Random(f"{seed}:refit:{n}")
        truth = {f"v{i:03d}": 40.0 * i for i in range(n)}
        ids = sorted(truth)
        games: list[ScoredGame] = []
        deal_sets = n * deal_sets_per_version // table
        for d in range(deal_sets):
            games.extend(play_deal_set(rng.sample(ids, table), truth, rng, d, len(games)))
        start = time.process_time()
        clustered_ratings(games, ids)
        rows.append({"versions": n, "deal_sets": deal_sets, "games": len(games),
                     "seconds": time.process_time() - start})
    return rows


def decision_cost(sizes: Sequence[int], deal_sets_per_version: int, table: int, seed: int,
                  timed: int = 200) -> list[dict[str, float]]:
    """CPU per decision of the matchmaker (what the service pays per claimed table) for
    fields of several sizes: ``deal_sets_per_version`` deal sets' seats per version played
    first (so that the field is past its new versions), then ``timed`` decisions timed, each
    given the games of the one before as the ladder gives them."""
    rows = []
    for n in sizes:
        rng = random.Random(f"{seed}:cost:{n}")
        truth = {f"v{i:03d}": 40.0 * i for i in range(n)}
        policy = matchmaker_policy(table, seed)
        ids = sorted(truth)
        played = dict.fromkeys(ids, 0)
        games: list[ScoredGame] = []
        warm = n * deal_sets_per_version // table
        cpu = 0.0
        for d in range(warm + timed):
            now = d * 3600.0 / TABLES_PER_HOUR
            versions = [Version(v, 0.0, played[v]) for v in ids]
            start = time.process_time()
            chosen = policy(versions, games, now)
            if d >= warm:
                cpu += time.process_time() - start
            games.extend(play_deal_set(chosen, truth, rng, d, len(games)))
            for v in chosen:
                played[v] += table
        rows.append({"versions": n, "games_before": warm * table,
                     "us_per_decision": 1e6 * cpu / timed})
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="runs per scenario (default 30)")
    parser.add_argument("--scenarios", default="spaced,field")
    parser.add_argument("--versions", type=int, default=16)
    parser.add_argument("--table-size", type=int, default=4)
    parser.add_argument("--luck", type=float, default=0.0,
                        help="Elo spread of a seat's cards in one deal (default 0)")
    parser.add_argument("--horizon", type=int, default=4000,
                        help="games per run; a target counts as reached when it holds from "
                        "some deal set to the last (default 4000)")
    parser.add_argument("--policies", default=",".join(POLICIES),
                        help="which of the three to play (random always: the ratios' base)")
    parser.add_argument("--variant", action="append", default=[], metavar="KEY=VALUE,...",
                        help="also play the matchmaker with these MatchConfig fields changed "
                        "(repeatable)")
    parser.add_argument("--refit-sizes", default="16,50,100")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1,
                        help="processes playing the runs (default 1; the figures do not change)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--save", metavar="FILE", help="also write the JSON report to FILE")
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few seconds")
    args = parser.parse_args(argv)
    if args.quick:
        args.runs, args.versions, args.refit_sizes = 2, 6, "6"
    report: dict[str, Any] = {"runs": args.runs, "versions": args.versions,
                              "table_size": args.table_size, "luck": args.luck,
                              "scenarios": {}}
    chosen = set(args.policies.split(",")) | {"random"}
    if args.variant:
        chosen.add("matchmaker")  # what a variant is held against
    if not chosen <= set(POLICIES):
        raise SystemExit(f"unknown policies {sorted(chosen - set(POLICIES))}")
    policies = [*(p for p in POLICIES if p in chosen),
                *(f"matchmaker {v}" for v in args.variant)]
    for name in policies:
        variant_fields(name.partition(" ")[2] if name.startswith("matchmaker") else "")
    for scenario in args.scenarios.split(","):
        jobs = [(name, truth_of(scenario, args.versions, run, args.seed), args.table_size,
                 args.seed * 1000 + run, args.horizon, args.luck)
                for run in range(args.runs) for name in policies]
        with ProcessPoolExecutor(args.jobs) as pool:
            outcomes = list(pool.map(run_policy, *zip(*jobs, strict=True)))
        per: dict[str, list[Outcome]] = {p: [] for p in policies}
        for job, outcome in zip(jobs, outcomes, strict=True):
            per[job[0]].append(outcome)  # in run order: the runs are paired across policies
        rows: dict[str, dict[str, Any]] = {}
        for name, outs in per.items():
            rows[name] = {
                "tau_games": median_or_none([o.tau_games for o in outs]),
                "top3_games": median_or_none([o.top_games for o in outs]),
                "unreached": sum(o.tau_games is None or o.top_games is None for o in outs),
                "cpu_per_decision_us": 1e6 * sum(o.cpu for o in outs)
                / max(1, sum(o.decisions for o in outs)),
                "most_hourly_share": max(o.most_share for o in outs),
                "runs": [[o.tau_games, o.top_games] for o in outs],
            }
        base = rows["random"]
        for name, row in rows.items():
            for key, games_of in (("tau_games", _tau_games), ("top3_games", _top_games)):
                b, v = base[key], row[key]
                ratio = key.replace("games", "ratio")
                row[ratio] = (v / b) if b and v else None
                mine, theirs = ([games_of(o) for o in per[p]] for p in (name, "random"))
                half = args.runs // 2
                row[ratio + "_halves"] = [ratio_of(mine[:half], theirs[:half]),
                                          ratio_of(mine[half:], theirs[half:])]
                row[ratio + "_90"] = bootstrap(mine, theirs, args.seed)
                if name.startswith("matchmaker "):  # a variant, against the defaults
                    defaults = [games_of(o) for o in per["matchmaker"]]
                    row[key.replace("games", "vs_defaults_90")] = bootstrap(
                        mine, defaults, args.seed)
        report["scenarios"][scenario] = rows
    report["decision"] = decision_cost([int(s) for s in args.refit_sizes.split(",")], 10,
                                       args.table_size, args.seed)
    report["refit"] = refit_cost([int(s) for s in args.refit_sizes.split(",")], 40,
                                 args.table_size, args.seed)
    if args.save:
        with open(args.save, "w", encoding="utf-8") as out:
            json.dump(report, out, indent=1)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{args.versions} versions, tables of {args.table_size}, luck {args.luck:g} Elo, "
          f"medians over {args.runs} runs")
    for scenario, rows in report["scenarios"].items():
        print(f"\n{scenario}:")
        width = max(12, *map(len, rows))
        print(f"  {'policy':{width}} {'tau>=0.9':>9} {'ratio':>6} {'top 3':>7} {'ratio':>6} "
              f"{'unreached':>9} {'us/decision':>11} {'max hourly':>10}")
        for name, row in rows.items():
            print(f"  {name:{width}} {_fmt(row['tau_games']):>9} {_fmt(row['tau_ratio'], 2):>6} "
                  f"{_fmt(row['top3_games']):>7} {_fmt(row['top3_ratio'], 2):>6} "
                  f"{row['unreached']:>9} {row['cpu_per_decision_us']:>11.0f} "
                  f"{row['most_hourly_share']:>10.2f}")
        print("  the ratios' spread: over the two halves of the runs, and the 5th-95th "
              "percentiles of 2,000 resamplings of the runs")
        for name, row in rows.items():
            if name != "random":
                print(f"  {name:{width}} tau {_spread(row, 'tau_ratio')}; "
                      f"top 3 {_spread(row, 'top3_ratio')}")
        for name, row in rows.items():
            if name.startswith("matchmaker "):
                low, high = (_fmt(x, 2) for x in row["tau_vs_defaults_90"])
                top_low, top_high = (_fmt(x, 2) for x in row["top3_vs_defaults_90"])
                print(f"  {name:{width}} over the defaults' medians, 90%: tau {low}-{high}; "
                      f"top 3 {top_low}-{top_high}")
    print("\nthe matchmaker's decision (one claimed table), past the new versions:")
    for r in report["decision"]:
        print(f"  {r['versions']:>4} versions, after {r['games_before']:>5} games: "
              f"{r['us_per_decision']:.0f} us CPU")
    print("\nrefit of the published board (Bradley-Terry with sandwich intervals):")
    for r in report["refit"]:
        print(f"  {r['versions']:>4} versions, {r['deal_sets']:>5} deal sets, "
              f"{r['games']:>6} games: {r['seconds']:.2f} s CPU")


def _spread(row: dict[str, Any], ratio: str) -> str:
    halves = "/".join(_fmt(x, 2) for x in row[ratio + "_halves"])
    low, high = (_fmt(x, 2) for x in row[ratio + "_90"])
    return f"halves {halves}, 90% {low}-{high}"


def _fmt(value: float | None, digits: int = 0) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


if __name__ == "__main__":
    main()
