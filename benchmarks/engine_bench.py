"""Engine benchmark: random-legal playouts per preset and player count, and observe()'s cost.

Why these numbers: a tournament plays thousands of games and a search bot simulates millions of
decisions, so the engine's decisions per second bounds both. Playouts use the same function as
``craits simulate`` (``craits.simulate.random_playout``), so the policy's own cost (one
``random.choice`` per decision) is included, as it would be for any caller.

``observe()`` is measured apart because the referee calls it for the seat to act before every
decision. Two forms are timed: with ``since`` (only the events that seat has not seen yet, what
a referee streaming events needs) and with the whole history (what a careless caller pays).

Two more tables put the numbers in context, each for both builds of the engine (the
mypyc-compiled one, ``bash .ci/build-engine``, and pure Python, ``CRAITS_PURE_ENGINE=1``), each
build measured in a child process of its own. Peers: the same random-legal loop at 4 players on
OpenSpiel's ``crazy_eights`` and RLCard's UNO (``benchmarks/peer_engines.py``; installed by the
``benchmark`` extra, reported as missing otherwise). Search: what a search bot gets from the SDK,
sampled worlds per second (``View.world_sampler().sample``), the same with the explanation of
the others' plays a weighing bot needs (``sample_explained``) and playouts of the rest of the
hand per second, from one mid-hand position. The first tables measure the build this process loaded,
which the report names.

Run::

    .venv/bin/python benchmarks/engine_bench.py            # full run (minutes)
    .venv/bin/python benchmarks/engine_bench.py --quick    # smoke run (seconds)
    .venv/bin/python benchmarks/engine_bench.py --json     # one JSON object on stdout
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import peer_engines

import craits.engine
from craits.engine import Game, Rules, native, observe, preset
from craits.simulate import policy_rng, random_playout
from craits_sdk import View

CONFIGS: dict[str, Rules] = {
    "standard": preset("standard"),
    "gamerules": preset("gamerules"),
    "spanish": preset("spanish"),
    "standard+face_cards": preset("standard").replace(face_cards=True),
}
"""The rules configurations measured, by the label shown in the table."""

PLAYER_COUNTS = (2, 3, 4, 5, 6, 10)
FULL_HISTORY_GAMES_DIVISOR = 20
"""Whole-history observe() is quadratic in game length, so it runs on fewer games."""


CLOCK = time.process_time
"""CPU seconds of this process: the machine is shared (2 cores), and wall time would also count
the time other processes held the CPU. Best-of-``repeat`` trims what contention remains."""


@dataclass(frozen=True, slots=True)
class PlayoutRow:
    """Speed of random playouts for one configuration and player count."""

    config: str
    players: int
    games: int
    decisions: int
    seconds: float

    @property
    def decisions_per_second(self) -> float:
        """The headline number."""
        return self.decisions / self.seconds

    @property
    def games_per_second(self) -> float:
        """What a tournament of random bots would see, without any I/O."""
        return self.games / self.seconds

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with the derived rates."""
        return {
            **asdict(self), "decisions_per_second": round(self.decisions_per_second, 1),
            "games_per_second": round(self.games_per_second, 3),
        }


@dataclass(frozen=True, slots=True)
class ObserveRow:
    """Cost of ``observe()`` per decision, beside the cost of the decision itself."""

    players: int
    games: int
    decisions: int
    play_us: float
    """Microseconds per decision without observe (legal_moves + random choice + apply)."""
    observe_since_us: float
    """Extra microseconds per decision for observe(game, seat, since=what that seat has seen)."""
    observe_full_us: float | None
    """Extra microseconds per decision for observe(game, seat), whole history (fewer games)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {k: round(v, 3) if isinstance(v, float) else v for k, v in asdict(self).items()}


Key = tuple[str, str, int]
"""A measurement's name: (kind, rules config or observe mode, players)."""


def best_times(tasks: dict[Key, Callable[[], int]], rounds: int) -> dict[Key, tuple[int, float]]:
    """Each task's decisions and lowest CPU time, running every task once per round.

    Interleaving the rounds spreads bursts of other load on a shared machine over different
    cells, instead of letting one burst spoil every run of the same cell.
    """
    best: dict[Key, tuple[int, float]] = {}
    for round_no in range(1, rounds + 1):
        for key, task in tasks.items():
            progress(f"round {round_no}/{rounds}: {' '.join(map(str, key))}")
            start = CLOCK()
            decisions = task()
            seconds = CLOCK() - start
            if key not in best or seconds < best[key][1]:
                best[key] = (decisions, seconds)
    return best


def playout_task(config: str, players: int, games: int) -> Callable[[], int]:
    """Random playouts of seeds 0..games-1, exactly as ``craits simulate`` plays them."""
    rules = CONFIGS[config]
    return lambda: sum(random_playout(rules, players, seed).decisions for seed in range(games))


NO_OBSERVE, OBSERVE_SINCE, OBSERVE_FULL = "none", "since", "full"


def observed_playout(rules: Rules, players: int, seed: int, mode: str) -> int:
    """One random game, observing the seat to act before each decision as ``mode`` says.

    ``since`` passes each seat the index of the first event it has not been shown yet, as a
    referee streaming events would; ``full`` asks for the whole history every time. Returns the
    number of decisions (the same in every mode: observing changes nothing).
    """
    game = Game.new(rules, players, seed)
    choice = policy_rng(seed).choice
    seen = [0] * players
    decisions = 0
    while not game.is_over:
        seat = game.to_act
        if mode == OBSERVE_SINCE:
            observe(game, seat, seen[seat])
            seen[seat] = len(game.events)
        elif mode == OBSERVE_FULL:
            observe(game, seat)
        game.apply(choice(game.legal_moves()))
        decisions += 1
    return decisions


def observe_task(mode: str, players: int, games: int) -> Callable[[], int]:
    """Playouts of seeds 0..games-1 under the standard rules, observing as ``mode`` says."""
    rules = CONFIGS["standard"]
    return lambda: sum(observed_playout(rules, players, s, mode) for s in range(games))


def observe_row(
    players: int, games: int, best: dict[Key, tuple[int, float]],
    full: tuple[int, float] | None,
) -> ObserveRow:
    """observe()'s cost per decision: the CPU time it adds to the same playouts."""
    decisions, base = best[("observe", NO_OBSERVE, players)]
    _, since = best[("observe", OBSERVE_SINCE, players)]
    full_us = None if full is None else 1e6 * (full[1] / full[0] - base / decisions)
    micro = 1e6 / decisions
    return ObserveRow(players, games, decisions, micro * base, micro * (since - base), full_us)


PEER_PLAYERS = 4
COMPILED, PURE = "compiled", "pure"
BUILD_NAMES = {COMPILED: "mypyc-compiled", PURE: "pure Python"}
NOT_BUILT = "not built (bash .ci/build-engine)"
"""What a row of the compiled build reports when there is none to measure."""


def in_child(build: str, what: str, seconds: float, repeat: int) -> Any:
    """One measurement (``--measure``) in a child process running ``build`` of the engine; None
    when the compiled build was asked for and the child could not load it."""
    env = dict(os.environ)
    env.pop(native.PURE_ENV, None)
    if build == PURE:
        env[native.PURE_ENV] = "1"
    command = [sys.executable, __file__, "--measure", what, "--peer-seconds", str(seconds),
               "--repeat", str(repeat)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    result = json.loads(done.stdout)
    return result if result.pop("compiled") == (build == COMPILED) else None


def craits_rate(build: str, seconds: float) -> peer_engines.Rate | None:
    """``peer_engines.craits_decisions`` at 4 players in a child running ``build``."""
    rate = in_child(build, "peer", seconds, 1)
    return None if rate is None else (rate["decisions"], rate["games"], rate["seconds"])


def peer_rows(seconds: float, repeat: int) -> list[dict[str, Any]]:
    """Decisions per second of the Craits engine (both builds) and its peers, best of
    ``repeat`` rounds of ``seconds`` CPU seconds each, the engines taking turns in every round."""
    engines: dict[str, tuple[str, int, Callable[[], peer_engines.Rate | None]] | None] = {
        "craits, mypyc-compiled": (
            NOT_BUILT, PEER_PLAYERS, lambda: craits_rate(COMPILED, seconds)),
        "craits, pure Python": ("", PEER_PLAYERS, lambda: craits_rate(PURE, seconds)),
        "OpenSpiel crazy_eights (C++, stepped from Python)": (
            "pyspiel", PEER_PLAYERS,
            lambda: peer_engines.openspiel_decisions(PEER_PLAYERS, seconds)),
        "RLCard UNO (Python)": ("rlcard", 2, lambda: peer_engines.rlcard_decisions(seconds)),
    }
    best: dict[str, tuple[int, int, float]] = {}
    for round_no in range(1, repeat + 1):
        for name, spec in engines.items():
            assert spec is not None
            module, _, task = spec
            if module and module != NOT_BUILT and not peer_engines.available(module):
                continue
            progress(f"round {round_no}/{repeat}: {name}")
            rate = task()
            if rate is None:
                continue
            decisions, games, cpu = rate
            if name not in best or decisions / cpu > best[name][0] / best[name][2]:
                best[name] = (decisions, games, cpu)
    rows = []
    for name, spec in engines.items():
        assert spec is not None
        module, players, _ = spec
        if name not in best:
            rows.append({"engine": name, "players": players, "missing": module})
            continue
        decisions, games, cpu = best[name]
        rows.append({"engine": name, "players": players, "decisions": decisions, "games": games,
                     "seconds": round(cpu, 3), "decisions_per_second": round(decisions / cpu, 1),
                     "decisions_per_game": round(decisions / games, 1)})
    return rows


def mid_hand_view(players: int = PEER_PLAYERS, seed: int = 3) -> View:
    """A seat's view in the middle of the third hand (6 cards dealt) of a random game."""
    game = Game.new(preset("standard"), players, seed)
    choice = policy_rng(seed).choice
    while game.hand_index < 2:
        game.apply(choice(game.legal_moves()))
    for _ in range(2 * players):
        game.apply(choice(game.legal_moves()))
    return View.from_observation(observe(game, game.to_act), game.rules)


def search_rows(seconds: float, repeat: int) -> list[dict[str, Any]]:
    """``search_row`` for each build of the engine (the compiled one only if built)."""
    rows = []
    for build in (COMPILED, PURE):
        progress(f"search: {BUILD_NAMES[build]}")
        row = in_child(build, "search", seconds, repeat)
        rows.append({"build": BUILD_NAMES[build], **(row or {"missing": NOT_BUILT})})
    return rows


def search_row(seconds: float, repeat: int) -> dict[str, Any]:
    """Sampled worlds per second (plain and explained) and playouts to the end of the hand per
    second (random legal moves, each from a fresh copy of one sampled world), from
    ``mid_hand_view``."""
    import random

    view = mid_hand_view()
    sampler = view.world_sampler()
    rng = random.Random(0)
    world = sampler.sample(rng, history=False)

    def for_seconds(step: Callable[[], object]) -> Callable[[], int]:
        """A round that repeats ``step`` for ``seconds`` and says how many times it ran."""
        def run() -> int:
            count, start = 0, CLOCK()
            while CLOCK() - start < seconds:
                step()
                count += 1
            return count
        return run

    def playout() -> None:
        game = world.clone()
        hand = game.hand_index
        while game.hand_index == hand and not game.is_over:
            game.apply(rng.choice(game.legal_moves()))

    kinds = {"samples": lambda: sampler.sample(rng, history=False),
             "explained": lambda: sampler.sample_explained(rng, history=False),
             "playouts": playout}
    best = best_times({("search", kind, view.players): for_seconds(step)
                       for kind, step in kinds.items()}, repeat)
    (n_samples, s_cpu), (n_explained, e_cpu), (n_playouts, p_cpu) = (
        best[("search", kind, view.players)] for kind in kinds)
    return {"players": view.players, "hand_number": view.hand_number,
            "cards_in_hand": len(view.hand), "unseen_cards": len(sampler.unseen),
            "worlds_per_second": round(n_samples / s_cpu, 1),
            "explained_worlds_per_second": round(n_explained / e_cpu, 1),
            "hand_playouts_per_second": round(n_playouts / p_cpu, 1)}


def machine() -> dict[str, Any]:
    """Where the numbers were taken: they mean little without it."""
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "system": f"{platform.system()} {platform.release()} {platform.machine()}",
        "load_average": load_average(),
        "engine": "mypyc-compiled" if craits.engine.COMPILED
        else f"pure Python ({craits.engine.NOT_COMPILED_BECAUSE})",
    }


def load_average() -> list[float] | None:
    """1/5/15-minute load when the run started: other work on the machine skews every number."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def cpu_model() -> str:
    """The CPU's model name where Linux says it, else what ``platform`` knows."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def progress(text: str) -> None:
    """Tell a human on a terminal what is being measured (stderr, so --json stays clean)."""
    if sys.stderr.isatty():
        sys.stderr.write(f"\r\033[K{text}")
        sys.stderr.flush()


def run(games: int, repeat: int, full_history: bool, peer_seconds: float) -> dict[str, Any]:
    """Every measurement, as one JSON-ready object."""
    started = machine()
    peers = peer_rows(peer_seconds, repeat)
    search = search_rows(peer_seconds, repeat)
    tasks: dict[Key, Callable[[], int]] = {}
    for config in CONFIGS:
        for players in PLAYER_COUNTS:
            tasks[("playout", config, players)] = playout_task(config, players, games)
    for players in PLAYER_COUNTS:
        for mode in (NO_OBSERVE, OBSERVE_SINCE):
            tasks[("observe", mode, players)] = observe_task(mode, players, games)
    best = best_times(tasks, repeat)
    full_games = max(1, games // FULL_HISTORY_GAMES_DIVISOR)
    full = best_times(
        {("observe", OBSERVE_FULL, p): observe_task(OBSERVE_FULL, p, full_games)
         for p in PLAYER_COUNTS} if full_history else {}, 1,
    )
    progress("")
    playouts = [PlayoutRow(c, p, games, *best[("playout", c, p)]).to_dict()
                for c in CONFIGS for p in PLAYER_COUNTS]
    observes = [observe_row(p, games, best, full.get(("observe", OBSERVE_FULL, p))).to_dict()
                for p in PLAYER_COUNTS]
    return {"machine": started, "load_average_at_end": load_average(), "games": games,
            "repeat": repeat, "playouts": playouts, "observe": observes, "peers": peers,
            "search": search}


def table(headers: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table with right-aligned columns (readable in a terminal and in docs)."""
    widths = [max(len(r[i]) for r in [headers, *rows]) for i in range(len(headers))]
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.rjust(w) for c, w in zip(cells, widths, strict=True)) + " |"
    rule = "|" + "|".join("-" * (w + 1) + ":" for w in widths) + "|"
    return [line(headers), rule, *(line(r) for r in rows)]


def report_lines(result: dict[str, Any]) -> list[str]:
    """The two tables, as printed and as pasted into docs/benchmarks.md."""
    m = result["machine"]
    lines = [f"Python {m['python']} ({m['implementation']}), {m['cores']} cores, {m['cpu']}",
             f"engine (first two tables): {m['engine']}",
             f"load average (1, 5, 15 min) at start {m['load_average']}, "
             f"at end {result['load_average_at_end']}",
             f"{result['games']} games per cell, best of {result['repeat']} interleaved rounds "
             "(CPU time)", ""]
    lines += table(
        ["rules", "players", "games", "decisions", "decisions/game", "decisions/s", "games/s"],
        [[r["config"], str(r["players"]), str(r["games"]), str(r["decisions"]),
          f"{r['decisions'] / r['games']:.0f}", f"{r['decisions_per_second']:,.0f}",
          f"{r['games_per_second']:,.1f}"] for r in result["playouts"]],
    )
    lines += ["", "observe() per decision (standard rules), CPU microseconds:", ""]
    lines += table(
        ["players", "decision without observe", "+ observe(since)", "+ observe(full history)"],
        [[str(r["players"]), f"{r['play_us']:.1f}", f"{r['observe_since_us']:.1f}",
          "n/a" if r["observe_full_us"] is None else f"{r['observe_full_us']:.1f}"]
         for r in result["observe"]],
    )
    lines += ["", "Random-legal playouts beside other engines (same Python loop, CPU time):", ""]
    openspiel = next((r["decisions_per_second"] for r in result["peers"]
                      if r["engine"].startswith("OpenSpiel") and "missing" not in r), None)
    lines += table(
        ["engine", "players", "decisions/game", "decisions/s", "of OpenSpiel's"],
        [[r["engine"], str(r["players"]), f"{r.get('decisions_per_game', 0):.0f}",
          f"{r['decisions_per_second']:,.0f}" if "missing" not in r else missing(r["missing"]),
          f"{r['decisions_per_second'] / openspiel:.2f}" if openspiel and "missing" not in r
          else "n/a"] for r in result["peers"]],
    )
    measured = [row for row in result["search"] if "missing" not in row]
    where = measured[0] if measured else {}
    lines += ["", f"Search from one mid-hand position ({where.get('players')} players, hand "
              f"{where.get('hand_number')}, {where.get('cards_in_hand')} cards in hand, "
              f"{where.get('unseen_cards')} unseen):", ""]
    lines += table(
        ["engine", "sampled worlds/s", "explained worlds/s", "playouts to the end of the hand/s"],
        [[row["build"], f"{row['worlds_per_second']:,.0f}",
          f"{row['explained_worlds_per_second']:,.0f}",
          f"{row['hand_playouts_per_second']:,.0f}"] if "missing" not in row
         else [row["build"], row["missing"], "", ""] for row in result["search"]],
    )
    return lines


def missing(what: str) -> str:
    """A table cell for an engine that could not be measured."""
    return what if what == NOT_BUILT else f"not installed ({what})"


def measure(what: str, seconds: float, repeat: int) -> dict[str, Any]:
    """One ``--measure`` for ``in_child``, saying which build ran it."""
    if what == "peer":
        decisions, games, cpu = peer_engines.craits_decisions(PEER_PLAYERS, seconds)
        row: dict[str, Any] = {"decisions": decisions, "games": games, "seconds": cpu}
    else:
        row = search_row(seconds, repeat)
    return {"compiled": craits.engine.COMPILED, **row}


def main(argv: list[str] | None = None) -> int:
    """Parse options, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=200, help="games per cell (default 200)")
    parser.add_argument(
        "--repeat", type=int, default=3,
        help="rounds over all cells; each cell's best round counts (default 3)",
    )
    parser.add_argument(
        "--quick", action="store_true",
        help="smoke run: 2 games per cell, no whole-history observe() (it is quadratic)",
    )
    parser.add_argument(
        "--peer-seconds", type=float, default=3.0,
        help="CPU seconds per round for each peer engine and search measurement (default 3)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--measure", choices=("peer", "search"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure:  # a child of in_child: one measurement, as JSON
        print(json.dumps(measure(args.measure, args.peer_seconds, args.repeat)))
        return 0
    if args.games < 1 or args.repeat < 1:
        parser.error("--games and --repeat must be at least 1")
    if args.quick:
        result = run(games=2, repeat=1, full_history=False, peer_seconds=0.05)
    else:
        result = run(args.games, args.repeat, full_history=True, peer_seconds=args.peer_seconds)
    if args.json:
        print(json.dumps(result))
    else:
        print("\n".join(report_lines(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
