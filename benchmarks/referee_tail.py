"""Where a referee decision's latency goes, part by part, for the median and the slowest 1%.

Usage: ``.venv/bin/python benchmarks/referee_tail.py [--tables 8] [--seconds 5] [--json]``

The same games as ``referee_bench.py`` (lean bots, T concurrent 2-player games), with four
timestamps taken for every decision by wrapping referee internals (each wrapper costs about a
microsecond, so absolute rates run a little below ``referee_bench.py``'s):

- **composed**: the seat starts building the request (``RemoteSeat._request``);
- **written**: the packet holding it is handed to gRPC (the stream writer's ``context.write``);
- **arrived**: the packet holding the reply is handed to the hub (``BotHub.on_packet``);
- **resumed**: the game task runs again and judges the reply (``RemoteSeat._judge``).

So a decision's latency splits into *before the write* (the rest of the trio pass, the writer's
extra loop pass, and the stream's previous write still completing), *write to arrival* (gRPC on
both sides, both loopback hops and the bot) and *before the game resumes*. The lean bot also
times its own work on each packet (``LEAN_BOT_STATS``), which separates the bot from gRPC.
Printed: each part's p50, p90 and p99, and each part's mean over the median decisions and over
the slowest 1%.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import referee_bench

from craits.referee import bridge, remote_seat
from craits.referee import hub as hub_module
from craits.v1 import referee_pb2 as pb

PARTS = ("total", "before_write", "write_to_arrival", "before_resume")
_Key = tuple[str, int]


class _Stamps:
    """Timestamps by (game id, decision id), filled by the wrappers below."""

    def __init__(self) -> None:
        self.by_decision: dict[_Key, dict[str, float]] = {}

    def mark(self, key: _Key, point: str) -> None:
        self.by_decision.setdefault(key, {})[point] = time.perf_counter()

    def parts(self) -> list[tuple[float, float, float, float]]:
        """(total, before write, write to arrival, before resume) of each complete decision."""
        out = []
        for s in self.by_decision.values():
            if len(s) == 4:
                out.append((s["resumed"] - s["composed"], s["written"] - s["composed"],
                            s["arrived"] - s["written"], s["resumed"] - s["arrived"]))
        return out


@contextmanager
def _instrumented(stamps: _Stamps) -> Iterator[None]:
    """Wrap the four referee internals that mark a decision's points; restore them after."""
    servicer, hub, seat = bridge._Servicer, hub_module.BotHub, remote_seat.RemoteSeat
    write: Callable[..., Any] = servicer._write
    on_packet, request, judge = hub.on_packet, seat._request, seat._judge

    class _TimedContext:
        def __init__(self, context: Any) -> None:
            self.context = context

        async def write(self, packet: pb.RefereePacket) -> None:
            for m in packet.messages:
                if m.HasField("decision"):
                    stamps.mark((m.decision.game_id, m.decision.decision_id), "written")
            await self.context.write(packet)

    async def timed_write(stream: Any, context: Any) -> None:
        await write(stream, _TimedContext(context))

    def timed_on_packet(self: Any, session: Any, packet: pb.BotPacket) -> None:
        for m in packet.messages:
            if m.HasField("move"):
                stamps.mark((m.move.game_id, m.move.decision_id), "arrived")
        on_packet(self, session, packet)

    def timed_request(self: Any, decision: Any, msg: Any) -> None:
        stamps.mark((decision.table.game_id, decision.decision_id), "composed")
        request(self, decision, msg)

    def timed_judge(self: Any, decision: Any, reply: Any) -> Any:
        stamps.mark((decision.table.game_id, decision.decision_id), "resumed")
        return judge(self, decision, reply)

    servicer._write = staticmethod(timed_write)  # type: ignore[method-assign]
    hub.on_packet = timed_on_packet  # type: ignore[method-assign]
    seat._request = timed_request  # type: ignore[method-assign]
    seat._judge = timed_judge  # type: ignore[method-assign]
    try:
        yield
    finally:
        servicer._write = staticmethod(write)  # type: ignore[method-assign]
        hub.on_packet = on_packet  # type: ignore[method-assign]
        seat._request = request  # type: ignore[method-assign]
        seat._judge = judge  # type: ignore[method-assign]


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def summarize(parts: list[tuple[float, float, float, float]]) -> dict[str, Any]:
    """Percentiles of each part, and each part's mean over the median and the slowest 1%."""
    ordered = sorted(parts)
    n = len(ordered)
    slowest = ordered[int(n * 0.99):]
    middle = ordered[max(0, n // 2 - n // 100): n // 2 + n // 100 + 1]
    summary: dict[str, Any] = {"decisions": n}
    for i, name in enumerate(PARTS):
        column = [p[i] * 1e6 for p in parts]
        summary[name] = {
            "p50_us": round(_percentile(column, 0.5)), "p90_us": round(_percentile(column, 0.9)),
            "p99_us": round(_percentile(column, 0.99)),
            "median_decisions_mean_us": round(statistics.fmean(p[i] for p in middle) * 1e6),
            "slowest_1pct_mean_us": round(statistics.fmean(p[i] for p in slowest) * 1e6),
        }
    return summary


def _bot_work(path: Path) -> dict[str, int]:
    """The lean bot's own time per packet (read done to write called), p50 and p99."""
    times = json.loads(path.read_text()) if path.exists() else []
    if not times:
        return {}
    return {"p50_us": round(_percentile(times, 0.5) * 1e6),
            "p99_us": round(_percentile(times, 0.99) * 1e6)}


def measure(tables: int, seconds: float) -> dict[str, Any]:
    """One run of ``tables`` concurrent games, every decision timed part by part."""
    stamps = _Stamps()
    with tempfile.TemporaryDirectory() as tmp:
        stats = Path(tmp) / "lean_bot_stats.json"
        os.environ["LEAN_BOT_STATS"] = str(stats)
        try:
            with _instrumented(stamps):
                rate = bridge.run(referee_bench._referee, tables, seconds, "lean")
        finally:
            del os.environ["LEAN_BOT_STATS"]
        bot = _bot_work(stats)
    parts = stamps.parts()
    if not parts:
        sys.exit("no decision was timed: make the run longer (--seconds)")
    return {"tables": tables, "decisions_per_s": round(rate["decisions_per_s"]),
            "bot_work": bot, **summarize(parts)}


def _print(result: dict[str, Any]) -> None:
    print(f"{result['tables']} tables, {result['decisions_per_s']} decisions/s, "
          f"{result['decisions']} decisions timed")
    print(f"{'part':<18}{'p50':>8}{'p90':>8}{'p99':>8}{'median dec.':>13}{'slowest 1%':>12}  (µs)")
    for name in PARTS:
        r = result[name]
        print(f"{name:<18}{r['p50_us']:>8}{r['p90_us']:>8}{r['p99_us']:>8}"
              f"{r['median_decisions_mean_us']:>13}{r['slowest_1pct_mean_us']:>12}")
    if result["bot_work"]:
        b = result["bot_work"]
        print(f"the lean bot's own work per packet: p50 {b['p50_us']} µs, p99 {b['p99_us']} µs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=8, help="concurrent games (default 8)")
    parser.add_argument("--seconds", type=float, default=5.0, help="length of the run")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args()
    if args.seconds <= 0 or args.tables < 1:
        parser.error("--seconds must be above 0 and --tables at least 1")
    result = measure(args.tables, args.seconds)
    if args.json:
        print(json.dumps(result))
    else:
        _print(result)


if __name__ == "__main__":
    main()
