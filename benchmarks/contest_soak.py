"""Memory and store growth of a contest service left running: ``craits contest serve`` with a
few sandboxed bots on its ladder, sampled for N minutes.

Usage::

    .venv/bin/python benchmarks/contest_soak.py [--minutes 20] [--bots 4] [--interval 60]
        [--warm 5] [--dir DIR] [--out soak.csv] [--tracemalloc FRAMES] [--trim] [--arenas N]
        [--serve-args '--workers 2']

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
own arenas, code, stacks), what the live feed keeps and the games the matchmaker remembers
(found among the collector's objects), the objects the garbage collector tracks, by type,
threads and open files; the parent reads ``RssAnon`` beside ``VmRSS`` (heap and stacks without
the code and file pages a process touches for the first time). With ``--tracemalloc FRAMES`` it
also traces Python's allocations and dumps a snapshot every ``--snapshot-every`` seconds; the
summary then prints the allocation sites (file:line) that grew most between the warm-up mark and
the end, each with its growth in the first and the second half of that span: a site that grows
in both halves by the same amount grows without bound, one that grew only in the first was a
cache filling. ``--trim`` has the probe call ``malloc_trim(0)`` before each sample (what of the
RSS is free memory malloc kept); ``--arenas N`` runs the service with ``MALLOC_ARENA_MAX=N``.
Tracing slows the service (fewer games a minute): measure memory over time without it.
"""

from __future__ import annotations

import argparse
import csv
import ctypes
import gc
import json
import os
import re
import shlex
import sqlite3
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

from craits.contest.live import ENDED_KEPT, ENDED_TEXT

CRAITS = [sys.executable, "-m", "craits"]
KINDS = {"greedy": "GreedyBot", "lowcard": "LowCardBot", "random": "RandomBot"}
PROBE = "_probe"
"""The first argument that makes this script the service's probe (``probe_main``)."""
WEEK_H = 24 * 7
COUNTS = ("objects", "live_games", "live_ended", "live_steps", "live_text",
          "matchmaker_seen")
"""The probe's figures that are counts, not bytes."""
_URL = re.compile(r"serving .* at (https?://\S+)")
_PREFIX = re.compile(r"/\S*/(site-packages|server|lib/python3\.\d+)/")


def run(*args: str | Path) -> str:
    """One ``craits`` command to its end; its stdout."""
    done = subprocess.run([*CRAITS, *map(str, args)], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise SystemExit(f"craits {' '.join(map(str, args))} failed:\n{done.stderr}")
    return done.stdout


def rss_kib(pid: int, field: str = "VmRSS") -> int:
    """VmRSS of ``pid`` in KiB (0 once it is gone), or another of its ``status`` fields: its
    part ``RssAnon`` is the heap and stacks, without the pages of code and files mapped."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def children_of() -> dict[int, list[int]]:
    """Every process's children (from ``/proc``'s parent links)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdecimal():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        parents.setdefault(parent, []).append(int(entry.name))
    return parents


def helpers_kib(pid: int) -> tuple[int, int]:
    """RSS in KiB of the processes below the service: its helpers (table workers: processes
    of ours, outside the sandbox) and the sandboxed bots (a ``bwrap`` and all below it)."""
    children = children_of()
    helpers = sandboxed = 0
    todo = [(child, False) for child in children.get(pid, [])]
    while todo:
        process, in_sandbox = todo.pop()
        try:
            program = Path(f"/proc/{process}/cmdline").read_bytes().split(b"\0", 1)[0]
        except OSError:
            continue
        in_sandbox = in_sandbox or Path(program.decode()).name == "bwrap"
        if in_sandbox:
            sandboxed += rss_kib(process)
        else:
            helpers += rss_kib(process)
        todo += [(child, in_sandbox) for child in children.get(process, [])]
    return helpers, sandboxed


def store_bytes(contest: Path) -> int:
    """The store on disk: the database, its WAL and shared memory."""
    return sum(p.stat().st_size for p in contest.glob("contest.db*"))


def games(contest: Path) -> tuple[int, int]:
    """Games recorded so far, and the database's own size in bytes (its pages in use, as
    the WAL shows them: the files hold up to ~4 MB more, the WAL before a checkpoint)."""
    db = sqlite3.connect(f"file:{contest / 'contest.db'}?mode=ro", uri=True)
    try:
        count = int(db.execute("SELECT count(*) FROM games").fetchone()[0])
        pages = int(db.execute("PRAGMA page_count").fetchone()[0])
        free = int(db.execute("PRAGMA freelist_count").fetchone()[0])
        size = int(db.execute("PRAGMA page_size").fetchone()[0])
    finally:
        db.close()
    return count, (pages - free) * size


# ---------------------------------------------------------------------- the probe (child side)
class MallInfo2(ctypes.Structure):
    """glibc's ``struct mallinfo2`` (glibc >= 2.33), summed over every arena."""

    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]


def probe_main(argv: Sequence[str]) -> None:
    """Run ``craits ARGV[1:]`` in this process with a sampling thread beside it; ``ARGV[0]``
    is the probe's settings as JSON (``out``: its directory; ``interval``, ``frames``,
    ``snapshot_every``, ``trim``)."""
    settings = json.loads(argv[0])
    if settings["frames"]:
        tracemalloc.start(settings["frames"])
    threading.Thread(target=_sample_loop, args=(settings,), daemon=True,
                     name="soak-probe").start()
    sys.argv = ["craits", *argv[1:]]
    from craits.cli.main import main as craits_main
    sys.exit(craits_main())


def _sample_loop(settings: dict[str, Any]) -> None:
    """Every ``interval`` s a line of ``probe.jsonl``; every ``snapshot_every`` s (when
    tracing) a tracemalloc snapshot ``snap-<unix time>.tm`` without the probe's own frames."""
    out = Path(settings["out"])
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
                partial = out / f"snap-{row['at']:.0f}.part"
                snapshot.dump(str(partial))
                partial.rename(partial.with_suffix(".tm"))
        with (out / "probe.jsonl").open("a") as handle:
            handle.write(json.dumps(row) + "\n")
        time.sleep(settings["interval"])


def held(objects: list[Any]) -> dict[str, int]:
    """What the service's known holders keep, found among the garbage collector's objects
    (those made after the referee's ``gc.freeze``, which hides older ones from
    ``gc.get_objects``): the live feed's games and their steps (``contest.live.LiveGame``:
    the public ones, being played or ended and kept, and the organiser's whole ones being
    played) and the games the matchmaker remembers having seen
    (``contest.matchmaking.Matchmaker``). Read from this thread while the service's thread
    changes them: a failed read is skipped."""
    found = dict.fromkeys(("live_games", "live_ended", "live_steps", "live_text",
                           "matchmaker_seen"), 0)
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
                found["matchmaker_seen"] += len(holder._seen)
        except (RuntimeError, AttributeError):
            continue
    return found


def probe_rows(out: Path) -> list[dict[str, Any]]:
    """The probe's samples so far."""
    try:
        return [json.loads(line) for line in (out / "probe.jsonl").read_text().splitlines()
                if line.endswith("}")]
    except OSError:
        return []


# ---------------------------------------------------------------------- the soak (parent side)
def start(contest: Path, probe: dict[str, Any], env: dict[str, str], more: Sequence[str]
          ) -> tuple[subprocess.Popen[str], str]:
    """``craits contest serve`` on a free port under the probe; returns it and its URL once
    it listens."""
    command = [sys.executable, __file__, PROBE, json.dumps(probe), "contest", "serve",
               str(contest), "--port", "0", *more]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, env={**os.environ, "PYTHONUNBUFFERED": "1", **env})
    found: list[str] = []
    ready = threading.Event()

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            match = _URL.search(line)
            if match and not found:
                found.append(match.group(1))
                ready.set()

    threading.Thread(target=read, daemon=True).start()
    if not ready.wait(60):
        process.kill()
        raise SystemExit("serve did not start within 60 s")
    return process, found[0]


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
    parser.add_argument("--serve-args", default="",
                        help="more arguments for craits contest serve, e.g. '--workers 2'")
    args = parser.parse_args()
    root = args.dir or Path(tempfile.mkdtemp(prefix="contest-soak-"))
    contest = root / "contest"
    probe_dir = root / "probe"
    probe_dir.mkdir(parents=True, exist_ok=True)
    run("contest", "init", contest, "--name", "Soak cup")
    names = [f"{list(KINDS)[i % 3]}-{i}" for i in range(args.bots)]
    tokens = {}
    for name in names:
        out = run("contest", "add", name, "--dir", contest, "--json")
        tokens[name] = re.search(r'"token":\s*"([^"]+)"', out).group(1)  # type: ignore[union-attr]
    probe = {"out": str(probe_dir), "interval": min(args.interval, 30.0),
             "frames": args.tracemalloc, "snapshot_every": args.snapshot_every,
             "trim": args.trim}
    env = {"MALLOC_ARENA_MAX": str(args.arenas)} if args.arenas else {}
    process, url = start(contest, probe, env, shlex.split(args.serve_args))
    samples: list[Sample] = []
    began_wall = time.time()
    try:
        for name in names:
            kind = name.split("-")[0]
            source = root / f"{name}.py"
            source.write_text(f"from craits_bots.{kind} import {KINDS[kind]}\n"
                              f"from craits_sdk import run\n\nrun({KINDS[kind]}())\n"
                              f"# {name}\n")
            run("contest", "submit", "--server", url, "--token", tokens[name], source)
        print(f"serving at {url}, pid {process.pid}, store in {contest}, probe in {probe_dir}",
              flush=True)
        header = (f"{'min':>5} {'rss':>6} {'anon':>6} {'workers':>7} {'bots':>6} {'malloc':>6} "
                  f"{'free':>5} {'other':>6} {'sqlite':>6} {'py':>6} {'objects':>8} {'thr':>3} "
                  f"{'fds':>4} {'ended':>5} {'steps':>6} {'db_KiB':>7} {'games':>6}")
        print(header + "    (MiB; the live feed's ended games and kept steps)", flush=True)
        began = time.monotonic()
        began_wall = time.time()
        second = False
        while True:
            elapsed = time.monotonic() - began
            count, used = games(contest)
            helpers, bots = helpers_kib(process.pid)
            latest = (probe_rows(probe_dir) or [{}])[-1]
            sample = Sample(elapsed / 60, rss_kib(process.pid), rss_kib(process.pid, "RssAnon"),
                            helpers, bots,
                            store_bytes(contest), used, count, latest)
            samples.append(sample)
            print(f"{sample.minutes:5.1f} {mib(sample.rss_kib * 1024):>6} "
                  f"{mib(sample.anon_kib * 1024):>6} "
                  f"{mib(helpers * 1024):>7} {mib(bots * 1024):>6} "
                  f"{mib(latest.get('malloc_used', 0)):>6} {mib(latest.get('malloc_free', 0)):>5} "
                  f"{mib(latest.get('other', 0)):>6} {mib(latest.get('sqlite', 0)):>6} "
                  f"{mib(latest.get('traced', 0)):>6} "
                  f"{latest.get('objects', 0):8d} {latest.get('threads', 0):3d} "
                  f"{latest.get('fds', 0):4d} {latest.get('live_ended', 0):5d} "
                  f"{latest.get('live_steps', 0):6d} {used / 1024:7.0f} {count:6d}", flush=True)
            if process.poll() is not None:
                raise SystemExit(f"serve exited with {process.returncode}")
            if elapsed >= args.minutes * 60:
                break
            if not second and elapsed >= args.second * 60:
                second = True  # a new version of the first bot: it plays, and gets a verdict
                source = root / f"{names[0]}-v2.py"
                source.write_text((root / f"{names[0]}.py").read_text() + "# version 2\n")
                run("contest", "submit", "--server", url, "--token", tokens[names[0]], source)
            time.sleep(min(args.interval, args.minutes * 60 - elapsed + 0.1))
    finally:
        if process.poll() is None:
            print(run("contest", "status", "--server", url, "--token", tokens[names[0]]))
        process.terminate()
        process.wait(timeout=60)
    if args.out:
        with args.out.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["minutes", "rss_kib", "anon_kib", "helpers_kib", "bots_kib",
                             "files_bytes", "db_bytes", "games", "malloc_used", "malloc_free",
                             "other", "sqlite", "traced", "objects"])
            writer.writerows([s.minutes, s.rss_kib, s.anon_kib, s.helpers_kib, s.bots_kib,
                              s.files_bytes, s.db_bytes, s.games, *(s.probe.get(k, "") for k in (
                                  "malloc_used", "malloc_free", "other", "sqlite",
                                  "traced", "objects"))] for s in samples)
    summary(samples, args.warm)
    if args.tracemalloc:
        growth(probe_dir, began_wall + args.warm * 60, args.top)


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
    for key in ("malloc_used", "malloc_free", "other", "sqlite", "traced", "traced_peak",
                *COUNTS):
        points = [(s.minutes, float(s.probe[key])) for s in warm if key in s.probe]
        if len(points) >= 3:
            count = key in COUNTS
            unit = 1.0 if count else 2.0**20
            print(f"  {key}: {points[0][1] / unit:.1f} -> {points[-1][1] / unit:.1f}"
                  f"{'' if count else ' MiB'}, slope "
                  f"{slope_per_hour([(x, y / unit) for x, y in points]):+.2f} an hour")
    types = [s.probe["types"] for s in warm if "types" in s.probe]
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


def growth(probe_dir: Path, warm_at: float, top: int) -> None:
    """The allocation sites that grew most from the first snapshot after the warm-up mark to
    the last, with their growth in each half of that span."""
    snaps = sorted(probe_dir.glob("snap-*.tm"), key=lambda p: int(p.stem.split("-")[1]))
    after = [p for p in snaps if int(p.stem.split("-")[1]) >= warm_at]
    if len(after) < 3:
        print(f"tracemalloc: {len(after)} snapshots after the warm-up, too few to compare")
        return
    first, middle, last = after[0], after[len(after) // 2], after[-1]
    load = tracemalloc.Snapshot.load
    a, b, c = load(str(first)), load(str(middle)), load(str(last))
    minutes = [(int(p.stem.split("-")[1]) - warm_at) / 60 for p in (first, middle, last)]
    whole = c.compare_to(a, "lineno")
    halves = ({s.traceback: s.size_diff for s in b.compare_to(a, "lineno")},
              {s.traceback: s.size_diff for s in c.compare_to(b, "lineno")})
    total = sum(s.size_diff for s in whole)
    print(f"tracemalloc: Python's traced memory {a_total(a):.1f} -> {a_total(c):.1f} MiB "
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


def a_total(snapshot: tracemalloc.Snapshot) -> float:
    return sum(s.size for s in snapshot.statistics("filename")) / 2**20


def shorten(path: str) -> str:
    """A source path from its package (``craits/...``, ``trio/...``), not its prefix."""
    return _PREFIX.sub("", path)


if __name__ == "__main__":
    main()
