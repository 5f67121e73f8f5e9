"""How much stronger is one bot than the others at a table: duplicate deals, in process.

Usage: ``.venv/bin/python benchmarks/strength_bench.py --bot ismcts:iterations=200
--against greedy,expert --deals 20 [--players 3] [--workers 2] [--full] [--json]``

Every deal is played once per rotation of the seats (a duplicate deal set), so each bot holds
each hand once. ``--bot`` is a bundled name with optional keyword arguments for its class
(``name:key=value,key=value``). For each opponent the bench reports the bot's pairwise score
(1 a better final total, ½ equal, 0 worse; the measure Bradley–Terry ratings use), its Elo
equivalent with a 95% interval from the spread of the deal sets, the mean points by which the
bot's total beat the opponent's, and the games needed to separate the two at 95% at that mean
and spread; and the CPU time the bot spent per decision with a choice (two legal moves or more).
``--independent`` deals every game afresh instead, for comparing the games needed. Games are
short (8 hands) unless ``--full`` asks for the whole game of 15.
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from craits.engine import preset
from craits_bots.registry import BUNDLED, load
from craits_sdk import Bot, View, play_game
from craits_sdk.bot import MoveLike


def parse_spec(spec: str) -> tuple[str, dict[str, int | float | str]]:
    """``name:key=value,...`` as the bundled name and its keyword arguments."""
    name, _, rest = spec.partition(":")
    kwargs: dict[str, int | float | str] = {}
    for item in filter(None, rest.split(",")):
        key, _, raw = item.partition("=")
        value: int | float | str = raw
        for kind in (int, float):
            try:
                value = kind(raw)
                break
            except ValueError:
                continue
        kwargs[key] = value
    return name, kwargs


class _Timed(Bot):
    """A bot wrapped to count its decisions with a choice (two legal moves or more) and the CPU
    time they took."""

    def __init__(self, inner: Bot) -> None:
        self.inner = inner
        self.name = inner.client_name()
        self.decisions = 0
        self.cpu = 0.0

    def decide(self, view: View) -> MoveLike:
        if len(view.legal_moves) == 1:  # no choice: not a decision the bot thinks about
            return view.legal_moves[0]
        start = time.process_time()
        move = self.inner.move_for(view)
        self.cpu += time.process_time() - start
        self.decisions += 1
        return move


@dataclass(frozen=True, slots=True)
class DealResult:
    """One deal set: the bot's pairwise score and point margin against each opponent."""

    scores: tuple[float, ...]
    margins: tuple[float, ...]
    cpu: float
    decisions: int


def _make(spec: str, seed: int) -> Bot:
    name, kwargs = parse_spec(spec)
    cls = load(name)
    if "seed" in inspect.signature(cls).parameters:
        kwargs = {"seed": seed, **kwargs}
    return cls(**kwargs)


def play_deal(bot: str, against: Sequence[str], players: int, deal: int,
              independent: bool = False, full: bool = False) -> DealResult:
    """Deal ``deal`` once per rotation of the seats, the bot and its opponents (repeated in
    order to fill the table); with ``independent``, a fresh deal for each rotation instead; with
    ``full``, whole games of 15 hands instead of short ones."""
    field = [bot, *[against[i % len(against)] for i in range(players - 1)]]
    rules = preset("standard").replace(short_game=not full)
    scores = [0.0] * (players - 1)
    margins = [0.0] * (players - 1)
    cpu, decisions = 0.0, 0
    for shift in range(players):
        seats = [(i + shift) % players for i in range(players)]  # entrant -> seat
        order = [""] * players
        for entrant, seat in enumerate(seats):
            order[seat] = field[entrant]
        timed = _Timed(_make(bot, deal))
        bots = [timed if s == seats[0] else _make(order[s], deal) for s in range(players)]
        seed = deal * players + shift + 10**6 if independent else deal
        totals = play_game(bots, rules, seed=seed, game_id=f"strength-{seed}").totals
        mine = totals[seats[0]]
        for k in range(players - 1):
            theirs = totals[seats[k + 1]]
            scores[k] += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
            margins[k] += theirs - mine
        cpu += timed.cpu
        decisions += timed.decisions
    return DealResult(tuple(s / players for s in scores), tuple(m / players for m in margins),
                      cpu, decisions)


def elo(score: float) -> float:
    """The Elo difference of a pairwise score."""
    score = min(max(score, 1e-3), 1 - 1e-3)
    return 400 * math.log10(score / (1 - score))


def games_needed(mean: float, sd: float, players: int) -> float:
    """Games (``players`` a unit) for the bot's mean pairwise score to differ from ½ at 95%
    (two-sided), at the observed mean and spread of the units."""
    if mean == 0.5:
        return math.inf
    return players * (1.96 * sd / (mean - 0.5)) ** 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot", required=True, help="name[:key=value,...] of the bot measured")
    parser.add_argument("--against", default="greedy", help="comma-separated opponents")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--first-deal", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--independent", action="store_true",
                        help="deal every game afresh instead of duplicate deal sets")
    parser.add_argument("--full", action="store_true",
                        help="whole games of 15 hands (default: short games of 8 hands)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.deals < 2:
        parser.error("--deals must be at least 2 (an interval needs the spread of two)")
    if not 2 <= args.players <= 10:
        parser.error("--players must be 2 to 10")
    against = args.against.split(",")
    for spec in (args.bot, *against):
        if parse_spec(spec)[0] not in BUNDLED:
            parser.error(f"no bundled bot {spec!r}; known: {', '.join(BUNDLED)}")
        try:
            _make(spec, 0)
        except (TypeError, ValueError) as exc:
            parser.error(f"cannot make {spec!r}: {exc}")
    started = time.perf_counter()
    deals = range(args.first_deal, args.first_deal + args.deals)
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(play_deal, [args.bot] * len(deals), [against] * len(deals),
                                [args.players] * len(deals), deals,
                                [args.independent] * len(deals), [args.full] * len(deals)))
    report: dict[str, object] = {
        "bot": args.bot, "players": args.players, "deals": args.deals, "full": args.full,
        "duplicate": not args.independent,
        "games": args.deals * args.players,
        "cpu_ms_per_decision": 1000 * sum(r.cpu for r in results)
        / max(1, sum(r.decisions for r in results)),
        "seconds": time.perf_counter() - started,
    }
    rows = []
    for k in range(args.players - 1):
        scores = [r.scores[k] for r in results]
        mean = statistics.fmean(scores)
        sd = statistics.stdev(scores) if len(scores) > 1 else 0.0
        half = 1.96 * sd / math.sqrt(len(scores))
        rows.append({
            "opponent": against[k % len(against)], "score": mean, "sd": sd, "elo": elo(mean),
            "elo_low": elo(mean - half), "elo_high": elo(mean + half),
            "margin": statistics.fmean(r.margins[k] for r in results),
            "games_needed": games_needed(mean, sd, args.players),
        })
    report["opponents"] = rows
    if args.json:
        print(json.dumps(report))
        return
    how = "independent deals" if args.independent else "duplicate deal sets"
    print(f"{args.bot} at tables of {args.players}, {how}: {report['games']} games, "
          f"{report['cpu_ms_per_decision']:.1f} ms CPU a decision with a choice, "
          f"{report['seconds']:.0f} s")
    for row in rows:
        print(f"  vs {row['opponent']:>8}: score {row['score']:.3f}, Elo {row['elo']:+.0f} "
              f"[{row['elo_low']:+.0f}, {row['elo_high']:+.0f}], "
              f"points ahead {row['margin']:+.1f}, sd of a deal set {row['sd']:.3f}, "
              f"games to separate at 95%: "
              f"{row['games_needed']:.0f}")


if __name__ == "__main__":
    main()
