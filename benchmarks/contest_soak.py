"""Memory and store growth of a contest service left running: ``craits contest serve`` with a
few sandboxed bots on its ladder, sampled for N minutes.

Usage::

    .venv/bin/python benchmarks/contest_soak.py [--minutes 20] [--bots 4] [--interval 60]
        [--warm 5] [--dir DIR] [--out soak.csv] [--tracemalloc FRAMES] [--trim] [--arenas N]
        [--probe-workers] [--serve-args '--workers 2']

It does what an organiser and contestants do: ``craits contest init``, ``add``, then ``serve``
as a real process, and ``submit`` over HTTP of one-file bots that play the bundled greedy,
lowcard and random bots (so every table is sandboxed, validation included). Every ``interval``
seconds it prints the service's resident set (``VmRSS`` of the serve process, which embeds the
API, the pages, the live feed and, unless it gives them to worker processes, the ladder), the
resident set of its other Python processes (table workers; the sandboxed bots are counted
apart), the size of the store (``contest.db`` with its WAL) and the games recorded so far. A
contest of weeks needs the first to stay flat and the second to grow by what the records
need: the summary gives the least-squares slope of the RSS after warm-up, its projection over
a week, and the database's bytes per game. After ``--second`` minutes a second version of the
first bot is uploaded; its status, with its verdict against the first, is printed at the end.

Where the memory goes: the service runs under a small probe (this script, run as the service's
``python`` with ``_probe`` first: it starts a sampling thread, then ``craits``'s own ``main``),
which reports what ``VmRSS`` alone cannot say: glibc malloc's bytes in use and free
(``mallinfo2``: free bytes that stay resident are fragmentation, not data), SQLite's own
allocations (``sqlite3_memory_used``: page caches and statements), the rest ("other": Python's
own arenas, code, stacks; ``blocks``: the small blocks Python's allocator has handed out, so
that arenas growing with a flat count are fragmentation), what the live feed keeps and the
tables the matchmaker keeps (found among the collector's objects), the objects the garbage
collector tracks, by type, threads and open files; the parent reads ``RssAnon`` beside ``VmRSS``
(heap and stacks without the code and file pages a process touches for the first time). With
``--tracemalloc FRAMES`` it also traces Python's allocations and dumps a snapshot every
``--snapshot-every`` seconds; the summary then prints the allocation sites (file:line) that grew
most between the warm-up mark and the end, each with its growth in the first and the second half
of that span: a site that grows in both halves by the same amount grows without bound, one that
grew only in the first was a cache filling. ``--trim`` has the probe call ``malloc_trim(0)``
before each sample (what of the RSS is free memory malloc kept); ``--arenas N`` runs the service
with ``MALLOC_ARENA_MAX=N``.
With ``--probe-workers`` each table worker the service starts runs under the probe too (the
probe swaps ``subprocess.Popen`` in the service for one that starts ``-m
craits.contest.tableworker`` through this script; nothing in the service knows), with the same
settings: its figures are the table's ``w_`` columns, and with ``--tracemalloc`` its sites are
printed too. Tracing slows the service (fewer games a minute): measure memory over time without
it. The contest is set up as the other contest benchmarks set theirs (``contest_setup``).
"""

from __future__ import annotations

import argparse
import csv
import ctypes
import gc
import json
import os
import re
import runpy
import shlex
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contest_setup import (
    Service,
    below,
    craits,
    cycle,
    db_used_bytes,
    enter,
    games,
    init,
    rss_kib,
    store_bytes,
    submit,
)

from craits.contest.live import ENDED_KEPT, ENDED_TEXT

PROBE = "_probe"
"""The first argument that makes this script a probe (``probe_main``)."""
WORKER = ["-m", "craits.contest.tableworker"]
"""How the service starts a table worker (``tableworker_pool``): after ``python``."""
WEEK_H = 24 * 7
COUNTS = ("objects", "blocks", "live_games", "live_ended", "live_steps", "live_text",
          "matchmaker_ledger")
"""The probe's figures that are counts, not bytes."""
_PREFIX = re.compile(r"/\S*/(site-packages|server|lib/python3\.\d+)/")


# ---------------------------------------------------------------------- the probe (child side)
class MallInfo2(ctypes.Structure):
    """glibc's ``struct mallinfo2`` (glibc >= 2.33), summed over every arena."""

    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]


def probe_main(argv: Sequence[str]) -> None:
    """Run ``craits ARGV[1:]`` (or ``-m MODULE ARGS``) in this process with a sampling thread
    beside it; ``ARGV[0]`` is the probe's settings as JSON (``out``: its directory; ``name``:
    what its files are called; ``interval``, ``frames``, ``snapshot_every``, ``trim``,
    ``workers``). With ``workers`` the service starts each table worker under a probe of its
    own (``worker-PID``), with the same settings."""
    settings = json.loads(argv[0])
    if settings["frames"]:
        tracemalloc.start(settings["frames"])
    threading.Thread(target=_sample_loop, args=(settings,), daemon=True,
                     name="soak-probe").start()
    if settings["workers"] and settings["name"] == "service":
        _probe_workers(settings)
    if argv[1:2] == ["-m"]:
        sys.argv = [argv[2], *argv[3:]]
        runpy.run_module(argv[2], run_name="__main__", alter_sys=True)
        return
    sys.argv = ["craits", *argv[1:]]
    from craits.cli.main import main as craits_main
    sys.exit(craits_main())


def _probe_workers(settings: dict[str, Any]) -> None:
    """Have ``subprocess.Popen`` start the service's table workers (``WORKER``) under this
    script's probe; every other command is started as asked."""
    popen = subprocess.Popen

    class Probed(popen):  # type: ignore[valid-type,misc]
        def __init__(self, args: Any, *rest: Any, **named: Any) -> None:
            if isinstance(args, list) and args[1:3] == WORKER:
                worker = json.dumps(settings | {"name": "worker"})
                args = [args[0], __file__, PROBE, worker, *args[1:]]
            super().__init__(args, *rest, **named)

    subprocess.Popen = Probed  # type: ignore[misc]


def _sample_loop(settings: dict[str, Any]) -> None:
    """Every ``interval`` s a line of ``probe.jsonl``; every ``snapshot_every`` s (when
    tracing) a tracemalloc snapshot ``snap-<unix time>.tm`` without the probe's own frames."""
    out = Path(settings["out"])
    name = settings["name"] if settings["name"] == "service" else f"worker-{os.getpid()}"
    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = MallInfo2
    sqlite = ctypes.CDLL("libsqlite3.so.0")  # the library the sqlite3 module loaded
    sqlite.sqlite3_memory_used.restype = ctypes.c_int64
    sqlite.sqlite3_memory_highwater.restype = ctypes.c_int64
    sqlite.sqlite3_memory_highwater.argtypes = [ctypes.c_int]
    last_snapshot = 0.0
    while True:
        row: dict[str, Any] = {"at": time.time()}
        if settings["trim"]:
            row["rss_before_trim_kib"] = rss_kib(os.getpid())
            libc.malloc_trim(0)
        info = libc.mallinfo2()
        row.update(rss_kib=rss_kib(os.getpid()), malloc_used=info.uordblks + info.hblkhd,
                   malloc_free=info.fordblks, malloc_mmapped=info.hblkhd,
                   sqlite=sqlite.sqlite3_memory_used(),
                   sqlite_peak=sqlite.sqlite3_memory_highwater(0),
                   objects=len(objects := gc.get_objects()) + gc.get_freeze_count(),
                   blocks=sys.getallocatedblocks(),
                   threads=len(os.listdir("/proc/self/task")),
                   fds=len(os.listdir("/proc/self/fd")))
        row["other"] = row["rss_kib"] * 1024 - row["malloc_used"] - info.fordblks
        row.update(held(objects))
        row["types"] = dict(Counter(type(o).__name__ for o in objects).most_common(40))
        del objects
        if tracemalloc.is_tracing():
            row["traced"], row["traced_peak"] = tracemalloc.get_traced_memory()
            tracemalloc.reset_peak()  # each sample's peak: the transient working sets
            row["tracing_overhead"] = tracemalloc.get_tracemalloc_memory()
            if row["at"] - last_snapshot >= settings["snapshot_every"]:
                last_snapshot = row["at"]
                snapshot = tracemalloc.take_snapshot().filter_traces([
                    tracemalloc.Filter(False, tracemalloc.__file__),
                    tracemalloc.Filter(False, __file__)])
                partial = out / f"{name}-snap-{row['at']:.0f}.part"
                snapshot.dump(str(partial))
                partial.rename(partial.with_suffix(".tm"))
        with (out / f"{name}.jsonl").open("a") as handle:
            handle.write(json.dumps(row) + "\n")
        time.sleep(settings["interval"])


def held(objects: list[Any]) -> dict[str, int]:
    """What the service's known holders keep, found among the garbage collector's objects
    (those made after the referee's ``gc.freeze``, which hides older ones from
    ``gc.get_objects``): the live feed's games and their steps (``contest.live.LiveGame``:
    the public ones, being played or ended and kept, and the organiser's whole ones being
    played) and the tables the matchmaker keeps in its ledger (``contest.matchmaking.
    Matchmaker``: those of its rate window; the games it has seen are one number now). Read
    from this thread while the service's thread changes them: a failed read is skipped."""
    found = dict.fromkeys(("live_games", "live_ended", "live_steps", "live_text",
                           "matchmaker_ledger"), 0)
    for holder in objects:
        kind = type(holder).__name__
        try:
            if kind == "LiveGame":
                steps = list(holder.steps)
                found["live_games"] += 1
                found["live_steps"] += len(steps)
                if holder.ended:
                    found["live_ended"] += 1
                    found["live_text"] += sum(len(step.text) for step in steps)
            elif kind == "Matchmaker":
                found["matchmaker_ledger"] += len(holder._ledger)
        except (RuntimeError, AttributeError):
            continue
    return found


def probe_rows(out: Path, name: str = "service") -> list[dict[str, Any]]:
    """A probe's samples so far: the service's, or with ``name`` "worker" the table worker's
    that wrote last (a worker that died has a successor)."""
    if name == "worker":
        found = sorted(out.glob("worker-*.jsonl"), key=lambda p: p.stat().st_mtime)
        if not found:
            return []
        name = found[-1].stem
    try:
        return [json.loads(line) for line in (out / f"{name}.jsonl").read_text().splitlines()
                if line.endswith("}")]
    except OSError:
        return []


# ---------------------------------------------------------------------- the soak (parent side)
@dataclass(frozen=True, slots=True)
class Sample:
    """One line of the soak's table."""

    minutes: float
    rss_kib: int
    anon_kib: int
    helpers_kib: int
    bots_kib: int
    files_bytes: int
    db_bytes: int
    games: int
    probe: dict[str, Any]
    worker: dict[str, Any]
    """The table worker's probe (the one that wrote last), when ``--probe-workers``."""


def mib(n: float) -> str:
    return f"{n / 2**20:.1f}"


def main() -> None:
    if sys.argv[1:2] == [PROBE]:
        probe_main(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=20.0)
    parser.add_argument("--bots", type=int, default=4)
    parser.add_argument("--interval", type=float, default=60.0)
    parser.add_argument("--warm", type=float, default=5.0,
                        help="minutes of warm-up before the RSS slope is fitted")
    parser.add_argument("--second", type=float, default=3.0,
                        help="minutes before a second version of the first bot is uploaded")
    parser.add_argument("--dir", type=Path, default=None, help="contest directory (kept)")
    parser.add_argument("--out", type=Path, default=None, help="also write the samples as CSV")
    parser.add_argument("--tracemalloc", type=int, default=0, metavar="FRAMES",
                        help="trace the service's Python allocations (FRAMES deep) and print "
                             "the sites that grew after the warm-up")
    parser.add_argument("--snapshot-every", type=float, default=60.0, metavar="S")
    parser.add_argument("--top", type=int, default=25, help="allocation sites to print")
    parser.add_argument("--trim", action="store_true",
                        help="malloc_trim(0) in the service before each sample")
    parser.add_argument("--arenas", type=int, default=0,
                        help="MALLOC_ARENA_MAX for the service (0: glibc's default)")
    parser.add_argument("--probe-workers", action="store_true",
                        help="run each table worker under the probe too (and --tracemalloc)")
    parser.add_argument("--serve-args", default="",
                        help="more arguments for craits contest serve, e.g. '--workers 2'")
    args = parser.parse_args()
    root = args.dir or Path(tempfile.mkdtemp(prefix="contest-soak-"))
    contest = root / "contest"
    probe_dir = root / "probe"
    probe_dir.mkdir(parents=True, exist_ok=True)
    init(contest, "Soak cup")
    entrants = enter(contest, cycle(args.bots), root)
    probe = {"out": str(probe_dir), "name": "service", "interval": min(args.interval, 30.0),
             "frames": args.tracemalloc, "snapshot_every": args.snapshot_every,
             "trim": args.trim, "workers": args.probe_workers}
    env = {"MALLOC_ARENA_MAX": str(args.arenas)} if args.arenas else {}
    service = Service(contest, shlex.split(args.serve_args), env=env, timeout=60,
                      command=[sys.executable, __file__, PROBE, json.dumps(probe)])
    samples: list[Sample] = []
    began_wall = time.time()
    try:
        for entrant in entrants:
            submit(service.url, entrant)
        print(f"serving at {service.url}, pid {service.pid}, store in {contest}, probe in "
              f"{probe_dir}", flush=True)
        header = (f"{'min':>5} {'rss':>6} {'anon':>6} {'workers':>7} {'bots':>6} {'malloc':>6} "
                  f"{'free':>5} {'other':>6} {'sqlite':>6} {'py':>6} {'objects':>8} {'thr':>3} "
                  f"{'fds':>4} {'ended':>5} {'steps':>6} {'db_KiB':>7} {'games':>6}")
        if args.probe_workers:
            header += f" | {'w_mall':>6} {'w_free':>6} {'w_oth':>6} {'w_py':>6} {'w_objs':>7}"
        print(header + "    (MiB; the live feed's ended games and kept steps; w_: the table "
              "worker's probe)", flush=True)
        began = time.monotonic()
        began_wall = time.time()
        second = False
        while True:
            elapsed = time.monotonic() - began
            helpers, bots = (sum(map(rss_kib, pids)) for pids in below(service.pid))
            latest = (probe_rows(probe_dir) or [{}])[-1]
            worker = (probe_rows(probe_dir, "worker") or [{}])[-1]
            sample = Sample(elapsed / 60, rss_kib(service.pid), rss_kib(service.pid, "RssAnon"),
                            helpers, bots, store_bytes(contest), db_used_bytes(contest),
                            games(contest), latest, worker)
            samples.append(sample)
            line = (f"{sample.minutes:5.1f} {mib(sample.rss_kib * 1024):>6} "
                    f"{mib(sample.anon_kib * 1024):>6} "
                    f"{mib(helpers * 1024):>7} {mib(bots * 1024):>6} "
                    f"{mib(latest.get('malloc_used', 0)):>6} "
                    f"{mib(latest.get('malloc_free', 0)):>5} "
                    f"{mib(latest.get('other', 0)):>6} {mib(latest.get('sqlite', 0)):>6} "
                    f"{mib(latest.get('traced', 0)):>6} "
                    f"{latest.get('objects', 0):8d} {latest.get('threads', 0):3d} "
                    f"{latest.get('fds', 0):4d} {latest.get('live_ended', 0):5d} "
                    f"{latest.get('live_steps', 0):6d} {sample.db_bytes / 1024:7.0f} "
                    f"{sample.games:6d}")
            if args.probe_workers:
                line += (f" | {mib(worker.get('malloc_used', 0)):>6} "
                         f"{mib(worker.get('malloc_free', 0)):>6} "
                         f"{mib(worker.get('other', 0)):>6} {mib(worker.get('traced', 0)):>6} "
                         f"{worker.get('objects', 0):7d}")
            print(line, flush=True)
            if service.process.poll() is not None:
                raise SystemExit(f"serve exited with {service.process.returncode}")
            if elapsed >= args.minutes * 60:
                break
            if not second and elapsed >= args.second * 60:
                second = True  # a new version of the first bot: it plays, and gets a verdict
                source = root / f"{entrants[0].name}-v2.py"
                source.write_text(entrants[0].source.read_text() + "# version 2\n")
                submit(service.url, entrants[0], source)
            time.sleep(min(args.interval, args.minutes * 60 - elapsed + 0.1))
    finally:
        if service.process.poll() is None:
            print(craits("contest", "status", "--server", service.url, "--token",
                         entrants[0].token))
        service.stop()
    if args.out:
        with args.out.open("w", newline="") as handle:
            writer = csv.writer(handle)
            keys = ("malloc_used", "malloc_free", "other", "sqlite", "traced", "objects")
            writer.writerow(["minutes", "rss_kib", "anon_kib", "helpers_kib", "bots_kib",
                             "files_bytes", "db_bytes", "games", *keys,
                             *(f"worker_{k}" for k in keys)])
            writer.writerows([s.minutes, s.rss_kib, s.anon_kib, s.helpers_kib, s.bots_kib,
                              s.files_bytes, s.db_bytes, s.games,
                              *(s.probe.get(k, "") for k in keys),
                              *(s.worker.get(k, "") for k in keys)] for s in samples)
    summary(samples, args.warm)
    if args.tracemalloc:
        for name in ["service", *sorted({p.name.split("-snap-")[0]
                                         for p in probe_dir.glob("worker-*-snap-*.tm")})]:
            growth(probe_dir, name, began_wall + args.warm * 60, args.top)


def slope_per_hour(points: Sequence[tuple[float, float]]) -> float:
    """Least-squares slope of (minutes, value) points, per hour."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    return 60 * sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else 0.0


def summary(samples: list[Sample], warm_min: float) -> None:
    """RSS after warm-up: its range, slope and a week's projection; the store's bytes per
    game after the first sample with games (the schema and the uploads' rows are there from
    the start)."""
    warm = [s for s in samples if s.minutes >= warm_min] or samples[-1:]
    last = samples[-1]
    print(f"rss: {mib(samples[0].rss_kib * 1024)} MiB at start, "
          f"{mib(warm[0].rss_kib * 1024)} at {warm[0].minutes:.1f} min, "
          f"{mib(last.rss_kib * 1024)} at {last.minutes:.1f} min; "
          f"peak {mib(max(s.rss_kib for s in samples) * 1024)}")
    full = next((s for s in samples if s.probe.get("live_ended", 0) >= ENDED_KEPT
                 or s.probe.get("live_text", 0) >= 0.9 * ENDED_TEXT), None)
    spans = [("after the warm-up", warm)]
    if full is not None:
        print(f"the live feed's ended games reached their bound at {full.minutes:.1f} min "
              f"({full.probe['live_ended']} games, {full.probe['live_text']:,} characters; "
              f"bounds {ENDED_KEPT} games, {ENDED_TEXT:,} characters)")
        spans.append(("once the feed was full", [s for s in samples if s.minutes >= full.minutes]))
    for span_label, span in spans:
        for label, values in (("service RSS", [s.rss_kib / 1024 for s in span]),
                              ("its anonymous part", [s.anon_kib / 1024 for s in span]),
                              ("workers' RSS", [s.helpers_kib / 1024 for s in span])):
            if len(span) < 3 or not any(values):
                continue
            slope = slope_per_hour([(s.minutes, v) for s, v in zip(span, values, strict=True)])
            print(f"{label} {span_label}, {span[0].minutes:.0f} to {span[-1].minutes:.0f} min "
                  f"({len(span)} samples): {min(values):.1f}-{max(values):.1f} MiB, "
                  f"least-squares slope {slope:+.2f} MiB/hour, {slope * WEEK_H:+.0f} MiB over a "
                  f"week at that rate")
    for who, rows in (("service", [s.probe for s in warm]),
                      ("table worker", [s.worker for s in warm])):
        if not any(rows):
            continue
        print(f"{who}'s probe after the warm-up:")
        for key in ("malloc_used", "malloc_free", "other", "sqlite", "traced", "traced_peak",
                    *COUNTS):
            points = [(s.minutes, float(row[key])) for s, row in zip(warm, rows, strict=True)
                      if key in row]
            if len(points) >= 3:
                count = key in COUNTS
                unit = 1.0 if count else 2.0**20
                print(f"  {key}: {points[0][1] / unit:.1f} -> {points[-1][1] / unit:.1f}"
                      f"{'' if count else ' MiB'}, slope "
                      f"{slope_per_hour([(x, y / unit) for x, y in points]):+.2f} an hour")
        types = [row["types"] for row in rows if "types" in row]
        if len(types) >= 2:
            grown = sorted(((types[-1].get(k, 0) - types[0].get(k, 0), k) for k in types[-1]),
                           reverse=True)[:8]
            print("  objects by type, growth after the warm-up: " + ", ".join(
                f"{name} {n:+d} (now {types[-1][name]})" for n, name in grown if n))
    first = next((s for s in samples if s.games > 0), None)
    if first and last.games > first.games:
        per = (last.db_bytes - first.db_bytes) / (last.games - first.games)
        print(f"database: {first.db_bytes / 1024:.0f} KiB at {first.games} games, "
              f"{last.db_bytes / 1024:.0f} KiB at {last.games} games: {per:.0f} bytes per "
              f"game; files with the WAL {last.files_bytes / 1024:.0f} KiB; "
              f"{last.games / last.minutes:.1f} games a minute")


def growth(probe_dir: Path, name: str, warm_at: float, top: int) -> None:
    """The allocation sites of probe ``name`` (``service``, ``worker-PID``) that grew most
    from the first snapshot after the warm-up mark to the last, with their growth in each
    half of that span."""
    snaps = sorted(probe_dir.glob(f"{name}-snap-*.tm"), key=taken)
    after = [p for p in snaps if taken(p) >= warm_at]
    if len(after) < 3:
        print(f"tracemalloc of the {name}: {len(after)} snapshots after the warm-up, too few "
              "to compare")
        return
    first, middle, last = after[0], after[len(after) // 2], after[-1]
    load = tracemalloc.Snapshot.load
    a, b, c = load(str(first)), load(str(middle)), load(str(last))
    minutes = [(taken(p) - warm_at) / 60 for p in (first, middle, last)]
    whole = c.compare_to(a, "lineno")
    halves = ({s.traceback: s.size_diff for s in b.compare_to(a, "lineno")},
              {s.traceback: s.size_diff for s in c.compare_to(b, "lineno")})
    total = sum(s.size_diff for s in whole)
    print(f"tracemalloc of the {name}: Python's traced memory {a_total(a):.1f} -> "
          f"{a_total(c):.1f} MiB "
          f"from warm-up +{minutes[0]:.1f} min to +{minutes[2]:.1f} min (middle +{minutes[1]:.1f})"
          f"; net {total / 2**20:+.2f} MiB. Sites by growth (KiB: whole, first half, second "
          "half; blocks):")
    for stat in sorted(whole, key=lambda s: -s.size_diff)[:top]:
        frame = stat.traceback[0]
        where = f"{shorten(frame.filename)}:{frame.lineno}"
        print(f"  {stat.size_diff / 1024:+9.1f} {halves[0].get(stat.traceback, 0) / 1024:+9.1f} "
              f"{halves[1].get(stat.traceback, 0) / 1024:+9.1f} {stat.count_diff:+8d}  "
              f"{where} (now {stat.size / 1024:.0f} KiB)")
    deep = c.compare_to(a, "traceback")
    if deep and len(deep[0].traceback) > 1:
        print("call chains of the five that grew most (most recent call last):")
        for stat in sorted(deep, key=lambda s: -s.size_diff)[:5]:
            print(f"  {stat.size_diff / 1024:+.1f} KiB, {stat.count_diff:+d} blocks:")
            for line in stat.traceback.format(limit=8):
                print(f"    {shorten(line)}")


def taken(snapshot: Path) -> int:
    """When a snapshot was taken (unix time, from its name)."""
    return int(snapshot.stem.rsplit("-", 1)[1])


def a_total(snapshot: tracemalloc.Snapshot) -> float:
    return sum(s.size for s in snapshot.statistics("filename")) / 2**20


def shorten(path: str) -> str:
    """A source path from its package (``craits/...``, ``trio/...``), not its prefix."""
    return _PREFIX.sub("", path)


if __name__ == "__main__":
    main()
