"""Referee throughput and latency with remote Python bots, beside a raw grpc.aio ping-pong.

Usage: ``.venv/bin/python benchmarks/referee_bench.py [--seconds 5] [--rounds 3] [--tables 1 8]
[--bots lean sdk js] [--baseline DIR] [--json]``

For each table count T: (1) raw ping-pong: a grpc.aio server echoing on the same ``Connect``
stream shape, and one client process with T streams, messages of the size of a real decision
request; (2) the referee (``bridge.run``, as every command runs it) playing T concurrent 2-player
games, each bot multiplexing all T tables over its one stream, with either bot kind:

- ``lean``: ``lean_bot.py``, one process holding both bots' streams and answering every request
  with ``legal_index=0``: it does what the ping-pong client does, so the gap to the ping-pong is
  the referee's own cost (this is the comparison the issue's target is about);
- ``lean2``: the same lean bot as two processes, one stream each, started as the referee starts
  every bot (``launch``: each in a session of its own, output to a log): the ceiling for the
  kinds below, which are started so too. On Linux a new session is a scheduling group of its own
  (autogroups), which on a busy machine slows a bot down by itself (``docs/benchmarks.md``);
- ``sdk``: two SDK ``random`` bot processes, as ``craits match`` launches them: end to end, with
  the SDK's own cost (decoding every request into a ``View``) in the loop;
- ``js``: two processes of the JavaScript bot (``bots/js``, Node), which answers the first legal
  move: what a bot in another language with its own gRPC library costs the referee.

``--baseline DIR`` adds the kind ``sdk-base``: the same SDK bots, run from another checkout's
sources (``DIR/server``, ``DIR/sdk`` and ``DIR/bots`` first on their ``PYTHONPATH``; e.g. a
``git worktree`` of the code before a change), measured in the same rounds as the others.

Reported: decisions (round trips) per second, latency percentiles, and the bots' CPU time per
decision (``bot_cpu_us``, from ``/proc``: all their threads, gRPC's included; steadier than
throughput on a shared machine). The referee's latency is
what it measures itself, from sending a request to receiving the valid reply; "added" is that
minus the raw round trip at the same percentile.

The host's speed drifts by 10-20% within minutes, so each table count is measured in
``--rounds`` rounds, each running the raw ping-pong and then every bot kind back to back. Each
reported figure is the median over rounds of that figure in one round: a ratio or an "added"
latency compares the referee with the raw run of its own round, never with another round's.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

from craits.engine import Game, observe, preset
from craits.hosting.launcher import launch
from craits.protocol import moves_to_pb, observation_to_pb
from craits.referee import bridge
from craits.referee.game import GameSpec, play_game
from craits.referee.hub import BotEntry
from craits.referee.server import Referee, open_referee
from craits.v1 import referee_pb2 as pb

PINGPONG = Path(__file__).with_name("pingpong.py")
LEAN_BOT = Path(__file__).with_name("lean_bot.py")
JS_BOT = Path(__file__).resolve().parent.parent / "bots" / "js" / "bot.js"
LEAN_LAUNCHED = f"{sys.executable} {LEAN_BOT} $CRAITS_SERVER $CRAITS_TOKEN"
"""The lean bot as a bot command: one stream, started as the referee starts every bot."""
BASE = "sdk-base"
"""The bot kind of ``--baseline``: SDK bots from another checkout."""


def typical_request_size() -> int:
    """Mean serialized size of decision requests in a real 2-player game."""
    game = Game.new(preset("standard"), 2, 1)
    sizes, sent = [], [0, 0]
    while not game.is_over:
        seat = game.to_act
        obs = observe(game, seat, sent[seat])
        sent[seat] = len(game.events)
        req = pb.DecisionRequest(game_id="g1", decision_id=1, observation=observation_to_pb(obs),
                                 legal_moves=moves_to_pb(obs.legal_moves))
        sizes.append(req.ByteSize())
        game.apply(game.legal_moves()[0])
    return sum(sizes) // len(sizes)


def raw_pingpong(streams: int, seconds: float, size: int) -> dict[str, float]:
    """Round trips per second and latency of the raw ceiling."""
    with tempfile.TemporaryDirectory() as tmp:
        port_file = Path(tmp) / "port"
        server = subprocess.Popen(
            [sys.executable, str(PINGPONG), "serve", str(port_file), str(size)]
        )
        try:
            while not port_file.exists() or not port_file.read_text():
                time.sleep(0.05)
            out = subprocess.run(
                [sys.executable, str(PINGPONG), "client", f"127.0.0.1:{port_file.read_text()}",
                 str(streams), str(seconds), str(size)],
                capture_output=True, text=True, check=True,
            ).stdout
        finally:
            server.kill()
            server.wait()
    result: dict[str, float] = json.loads(out)
    return result


class BotCpu:
    """CPU seconds the bot processes used: each lean process's own, and each launched bot's
    process group's (``launch`` makes one per bot: a shell and, say, its ``node`` child)."""

    def __init__(self) -> None:
        self.pids: set[int] = set()
        self.groups: set[int] = set()

    def seconds(self) -> float:
        """Their CPU time so far (user and system), from ``/proc``."""
        ticks = 0
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # it ended meanwhile
            if int(stat.parent.name) in self.pids or int(fields[2]) in self.groups:
                ticks += int(fields[11]) + int(fields[12])
        return ticks / os.sysconf("SC_CLK_TCK")


async def _lean_bots(ref: Referee, stack: contextlib.AsyncExitStack, cpu: BotCpu
                     ) -> list[BotEntry]:
    """Two bots in ONE ``lean_bot.py`` process (one stream each), like the ping-pong client."""
    entries = [ref.hub.issue_token(f"lean{i}") for i in range(2)]
    process = await trio.lowlevel.open_process(
        [sys.executable, str(LEAN_BOT), ref.address, *(e.token for e in entries)]
    )
    stack.push_async_callback(process.wait)  # it exits when the referee closes its streams
    cpu.pids.add(process.pid)
    return entries


async def _launched_bots(
    ref: Referee, stack: contextlib.AsyncExitStack, nursery: trio.Nursery, cpu: BotCpu,
    spec: str, env: dict[str, str] | None = None,
) -> list[BotEntry]:
    """Two processes of the bot ``spec`` names, as ``craits match`` launches them."""
    logs = Path(tempfile.mkdtemp(prefix="craits-bench-"))
    bots = [await launch(ref.hub, ref.address, spec, f"bot{i}", logs, env) for i in range(2)]
    for bot in bots:
        nursery.start_soon(bot.watch, ref.hub)
        stack.push_async_callback(bot.stop)
        cpu.groups.add(bot.process.pid)
    return [bot.entry for bot in bots]


def _baseline_env(checkout: Path) -> dict[str, str]:
    """The environment that runs the SDK bots from ``checkout``'s sources instead of ours."""
    roots = [str(checkout / part) for part in ("server", "sdk", "bots")]
    return {"PYTHONPATH": os.pathsep.join(roots)}


async def _referee(tables: int, seconds: float, bots: str, baseline: Path | None = None
                   ) -> dict[str, float]:
    """Decisions/s and referee-measured latency of ``tables`` concurrent 2-player games."""
    decisions, latencies, cpu = 0, [], BotCpu()
    async with open_referee() as ref, trio.open_nursery() as nursery:
        async with contextlib.AsyncExitStack() as stack:
            if bots == "lean":
                entries = await _lean_bots(ref, stack, cpu)
            elif bots == "lean2":
                entries = await _launched_bots(ref, stack, nursery, cpu, LEAN_LAUNCHED)
            elif bots == "js":
                entries = await _launched_bots(ref, stack, nursery, cpu, f"node {JS_BOT}")
            elif bots == BASE and baseline is not None:
                entries = await _launched_bots(ref, stack, nursery, cpu, "random",
                                               _baseline_env(baseline))
            else:
                entries = await _launched_bots(ref, stack, nursery, cpu, "random")
            for entry in entries:
                await ref.hub.wait_connected(entry, 30)
            cpu_at_start = cpu.seconds()
            deadline = time.perf_counter() + seconds

            async def table(t: int) -> None:
                nonlocal decisions
                game = 0
                while time.perf_counter() < deadline:
                    spec = GameSpec(f"t{t}g{game}", preset("standard"), 1000 * t + game)
                    result = await play_game(spec, [ref.hub.seat_for(e) for e in entries])
                    decisions += len(result.moves)
                    latencies.extend(result.latencies_us)
                    game += 1

            started = time.perf_counter()
            async with trio.open_nursery() as games:
                for t in range(tables):
                    games.start_soon(table, t)
            elapsed = time.perf_counter() - started
            bot_cpu = cpu.seconds() - cpu_at_start
            ref.hub.close_all()
        nursery.cancel_scope.cancel()
    latencies.sort()
    return {
        "decisions_per_s": decisions / elapsed,
        "bot_cpu_us": bot_cpu * 1e6 / max(1, decisions),
        "p50_us": latencies[len(latencies) // 2],
        "p99_us": latencies[int(len(latencies) * 0.99)],
    }


def _row(tables: int, size: int, raw: dict[str, float], ref: dict[str, float], bots: str
         ) -> dict[str, Any]:
    return {
        "tables": tables, "bots": bots, "message_bytes": size,
        "raw_rt_per_s": round(raw["round_trips_per_s"]),
        "referee_decisions_per_s": round(ref["decisions_per_s"]),
        "ratio": round(ref["decisions_per_s"] / raw["round_trips_per_s"], 2),
        "raw_p50_us": round(raw["p50_us"]), "raw_p99_us": round(raw["p99_us"]),
        "referee_p50_us": round(ref["p50_us"]), "referee_p99_us": round(ref["p99_us"]),
        "added_p50_us": round(ref["p50_us"] - raw["p50_us"]),
        "added_p99_us": round(ref["p99_us"] - raw["p99_us"]),
        "bot_cpu_us": round(ref["bot_cpu_us"], 1),
    }


def _median_row(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """Each figure's median over the rounds (first and last ratio kept, to show the spread)."""
    row = dict(rounds[0])
    for key, value in rounds[0].items():
        if key not in ("tables", "bots", "message_bytes"):
            median = statistics.median(r[key] for r in rounds)
            row[key] = round(median, 2) if isinstance(value, float) else round(median)
    ratios = sorted(r["ratio"] for r in rounds)
    row["rounds"], row["ratio_min"], row["ratio_max"] = len(rounds), ratios[0], ratios[-1]
    return row


def measure(tables: int, bots: list[str], seconds: float, rounds: int, size: int,
            baseline: Path | None = None) -> list[dict[str, Any]]:
    """Median rows for ``tables``, one per bot kind, from alternating rounds."""
    per_kind: dict[str, list[dict[str, Any]]] = {b: [] for b in bots}
    for _ in range(rounds):
        raw = raw_pingpong(tables, seconds, size)
        for kind in bots:
            ref = bridge.run(_referee, tables, seconds, kind, baseline)
            per_kind[kind].append(_row(tables, size, raw, ref, kind))
    return [_median_row(per_kind[kind]) for kind in bots]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each run")
    parser.add_argument("--rounds", type=int, default=3,
                        help="alternating raw/referee rounds per table count (medians reported)")
    parser.add_argument("--tables", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--bots", nargs="+", choices=["lean", "lean2", "sdk", "js"],
                        default=["lean", "sdk"],
                        help="lean: lean_bot.py (does what the ping-pong client does); lean2: "
                             "the same as two processes launched as bots are; sdk: two SDK "
                             "random bots; js: two JavaScript bots (bots/js)")
    parser.add_argument("--baseline", type=Path, metavar="DIR",
                        help="also measure the SDK bots of the checkout at DIR (kind sdk-base), "
                             "e.g. a git worktree of the code before a change")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.seconds <= 0 or args.rounds < 1 or min(args.tables) < 1:
        parser.error("--seconds must be above 0, and --rounds and --tables at least 1")
    if args.baseline is not None and not (args.baseline / "sdk" / "craits_sdk").is_dir():
        parser.error(f"--baseline {args.baseline}: no sdk/craits_sdk there; give the root of "
                     "a checkout of this project")
    if "js" in args.bots and not (JS_BOT.parent / "node_modules").is_dir():
        parser.error("--bots js needs the JavaScript bot's packages: run bash .ci/setup "
                     "(or npm ci in bots/js)")
    kinds = [*args.bots, BASE] if args.baseline is not None else args.bots
    size = typical_request_size()
    rows: list[dict[str, Any]] = []
    for tables in args.tables:
        rows += measure(tables, kinds, args.seconds, args.rounds, size, args.baseline)
    if args.json:
        print(json.dumps(rows))
        return
    head = list(rows[0])
    print(" | ".join(head))
    for row in rows:
        print(" | ".join(str(row[k]) for k in head))


if __name__ == "__main__":
    main()
