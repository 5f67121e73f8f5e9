"""What fair play costs: the same tournament with its bots trusted, and sandboxed as adversaries.

Usage: ``.venv/bin/python benchmarks/sandbox_bench.py [--deal-sets 4] [--table-size 3]
[--rounds 2] [--orders] [--json]``

The bundled bots (greedy, random, lowcard) are given as *command* bots, so that the tournament
treats them as programs: under ``trust = "trusted"`` each is one process for the whole run (the
old behaviour); under ``trust = "adversarial"`` (the default) each runs in a bubblewrap sandbox
and, at duplicate deals, as one process per seating (``table_size`` processes per bot). Both
modes play the same schedule with the same seed; each round runs both, alternating, so the
machine's noise falls on both alike. Also measured: how long one bot takes from launch to
connected, plain, in a sandbox without control groups, and in a sandbox with them (as
tournaments run it where groups are usable: ``craits/hosting/botgroup.py``).

``--orders`` also plays the adversarial tournament in the order from before seating-major play
(``schedule.seating_major``; the seatings of a deal set interleaved, every bot process living for
the whole run, through the tests' hook ``UNSAFE_INTERLEAVED_ENV``): what ending every sandboxed
process between seatings costs, beside it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any
from unittest import mock

import trio

from craits.hosting import sandbox
from craits.hosting.botgroup import BotGroup
from craits.hosting.launcher import launch, stop_all
from craits.referee import bridge
from craits.referee.server import open_referee
from craits.tournament.plan.config import config_from_dict
from craits.tournament.plan.schedule import UNSAFE_INTERLEAVED_ENV
from craits.tournament.run.runner import RunOptions, run_tournament
from craits.tournament.store.database import Store

BOTS = {"greedy": "GreedyBot", "random": "RandomBot", "lowcard": "LowCardBot"}


def config_for(trust: str, deal_sets: int, table_size: int) -> dict[str, Any]:
    return {
        "name": f"bench-{trust}", "seed": 5, "trust": trust, "deal_sets": deal_sets,
        "table_size": table_size, "concurrency": 4, "rules": {"short_game": True},
        "bots": [{"name": n, "command": f"python3 -m craits_sdk run craits_bots.{n}:{c}"}
                 for n, c in BOTS.items()],
    }


MODES = ("trusted", "adversarial, no groups", "adversarial")
"""How the tournament's command bots run: unsandboxed; sandboxed without control groups;
sandboxed with them (as adversarial tournaments run where groups are usable)."""
INTERLEAVED = "adversarial, interleaved"
"""With ``--orders``: sandboxed, with groups, the seatings interleaved as before."""


def _groups(on: bool) -> contextlib.AbstractContextManager[object]:
    """Control groups as usual, or none (``BotGroup.make`` says they are not usable)."""
    return contextlib.nullcontext() if on else mock.patch.object(BotGroup, "make",
                                                                 return_value=None)


def one_tournament(mode: str, deal_sets: int, table_size: int) -> float:
    """Games per second of one run."""
    trust = mode.partition(",")[0]
    config = config_from_dict(config_for(trust, deal_sets, table_size))
    order = {UNSAFE_INTERLEAVED_ENV: "1" if mode == INTERLEAVED else "0"}
    with _groups(mode != "adversarial, no groups"), tempfile.TemporaryDirectory() as tmp, \
            Store.open(Path(tmp) / "t.sqlite") as store, mock.patch.dict(os.environ, order):
        Path(tmp).chmod(0o755)  # sandboxed bots (own user ids) run in it
        tid = store.create_tournament(config, workdir=Path(tmp))
        started = time.perf_counter()
        bridge.run(run_tournament, store, tid, RunOptions(Path(tmp) / "logs"))
        seconds = time.perf_counter() - started
        return store.tournament(tid).jobs["done"] / seconds


async def _launch_to_connected(sandboxed: bool, log_dir: Path) -> float:
    async with open_referee(unix_socket=True) as referee, trio.open_nursery() as nursery:
        plan = None
        if sandboxed:
            assert referee.socket is not None
            plan = sandbox.plan_for(log_dir, referee.socket, sandbox.SandboxLimits())
        started = time.perf_counter()
        bot = await launch(referee.hub, referee.address, "random", "random", log_dir, plan=plan)
        nursery.start_soon(bot.watch, referee.hub)
        assert await referee.hub.wait_connected(bot.entry, 30)
        seconds = time.perf_counter() - started
        await stop_all(referee.hub, [bot])
        nursery.cancel_scope.cancel()
        return seconds


STARTS = ("plain", "sandboxed, no groups", "sandboxed")


def launch_to_connected(kind: str) -> float:
    """Seconds from launch to connected for one bot started the ``kind`` way."""
    with _groups(kind != "sandboxed, no groups"), tempfile.TemporaryDirectory() as tmp:
        Path(tmp).chmod(0o755)
        return bridge.run(_launch_to_connected, kind != "plain", Path(tmp))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deal-sets", type=int, default=4)
    parser.add_argument("--table-size", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--orders", action="store_true",
                        help="also the adversarial run in the old, interleaved order")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if (problem := sandbox.missing()) is not None:
        raise SystemExit(problem)
    modes = (*MODES, INTERLEAVED) if args.orders else MODES
    rates: dict[str, list[float]] = {mode: [] for mode in modes}
    starts: dict[str, list[float]] = {kind: [] for kind in STARTS}
    for _ in range(args.rounds):
        for mode in rates:
            rates[mode].append(one_tournament(mode, args.deal_sets, args.table_size))
        for kind in starts:
            starts[kind].append(launch_to_connected(kind))
    result = {
        "table_size": args.table_size, "deal_sets": args.deal_sets, "rounds": args.rounds,
        "games_per_s": {t: round(max(r), 2) for t, r in rates.items()},
        "adversarial_vs_trusted": round(max(rates["adversarial"]) / max(rates["trusted"]), 2),
        **({"seating_major_vs_interleaved": round(
            max(rates["adversarial"]) / max(rates[INTERLEAVED]), 2)} if args.orders else {}),
        "launch_to_connected_ms": {k: round(1000 * statistics.median(v)) for k, v in
                                   starts.items()},
    }
    if args.json:
        print(json.dumps(result))
        return
    print(f"tables of {args.table_size}, {args.deal_sets} deal sets, best of {args.rounds}:")
    for trust, rate in result["games_per_s"].items():
        print(f"  {trust:22} {rate:6.2f} games/s")
    print(f"  adversarial / trusted: {result['adversarial_vs_trusted']:.2f}")
    if args.orders:
        print(f"  seating-major / interleaved: {result['seating_major_vs_interleaved']:.2f}")
    for kind, ms in result["launch_to_connected_ms"].items():
        print(f"  one bot, launch to connected, {kind:21}: {ms} ms (median)")


if __name__ == "__main__":
    main()
