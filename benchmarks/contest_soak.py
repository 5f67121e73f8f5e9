"""Memory and store growth of a contest service left running: ``craits contest serve`` with a
few sandboxed bots on its ladder, sampled for N minutes.

Usage::

    .venv/bin/python benchmarks/contest_soak.py [--minutes 20] [--bots 4] [--interval 30]
        [--dir DIR] [--out soak.csv]

It does what an organiser and contestants do: ``craits contest init``, ``add``, then ``serve``
as a real process, and ``submit`` over HTTP of one-file bots that play the bundled greedy,
lowcard and random bots (so every table is sandboxed, validation included). Every ``interval``
seconds it prints the service's resident set (``VmRSS`` of the serve process, which embeds the
referee, the ladder and the API), the size of the store (``contest.db`` with its WAL) and the
games recorded so far. A contest of weeks needs the first to stay flat and the second to grow
by what the records need: the summary gives bytes per game. After ``--second`` minutes a
second version of the first bot is uploaded; its status, with its verdict against the first,
is printed at the end.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

CRAITS = [sys.executable, "-m", "craits"]
KINDS = {"greedy": "GreedyBot", "lowcard": "LowCardBot", "random": "RandomBot"}
_URL = re.compile(r"serving .* at (https?://\S+)")


def run(*args: str | Path) -> str:
    """One ``craits`` command to its end; its stdout."""
    done = subprocess.run([*CRAITS, *map(str, args)], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise SystemExit(f"craits {' '.join(map(str, args))} failed:\n{done.stderr}")
    return done.stdout


def rss_kib(pid: int) -> int:
    """VmRSS of ``pid`` in KiB (0 once it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


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


def start(contest: Path) -> tuple[subprocess.Popen[str], str]:
    """``craits contest serve`` on a free port; returns it and its URL once it listens."""
    process = subprocess.Popen([*CRAITS, "contest", "serve", str(contest), "--port", "0"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=20.0)
    parser.add_argument("--bots", type=int, default=4)
    parser.add_argument("--interval", type=float, default=30.0)
    parser.add_argument("--second", type=float, default=3.0,
                        help="minutes before a second version of the first bot is uploaded")
    parser.add_argument("--dir", type=Path, default=None, help="contest directory (kept)")
    parser.add_argument("--out", type=Path, default=None, help="also write the samples as CSV")
    args = parser.parse_args()
    root = args.dir or Path(tempfile.mkdtemp(prefix="contest-soak-"))
    contest = root / "contest"
    run("contest", "init", contest, "--name", "Soak cup")
    names = [f"{list(KINDS)[i % 3]}-{i}" for i in range(args.bots)]
    tokens = {}
    for name in names:
        out = run("contest", "add", name, "--dir", contest, "--json")
        tokens[name] = re.search(r'"token":\s*"([^"]+)"', out).group(1)  # type: ignore[union-attr]
    process, url = start(contest)
    rows: list[tuple[float, int, int, int, int]] = []
    try:
        for name in names:
            kind = name.split("-")[0]
            source = root / f"{name}.py"
            source.write_text(f"from craits_bots.{kind} import {KINDS[kind]}\n"
                              f"from craits_sdk import run\n\nrun({KINDS[kind]}())\n"
                              f"# {name}\n")
            run("contest", "submit", "--server", url, "--token", tokens[name], source)
        print(f"serving at {url}, pid {process.pid}, store in {contest}", flush=True)
        print(f"{'min':>6} {'rss_MiB':>8} {'files_KiB':>10} {'db_KiB':>8} {'games':>6}",
              flush=True)
        began = time.monotonic()
        second = False
        while True:
            elapsed = time.monotonic() - began
            count, used = games(contest)
            row = (elapsed / 60, rss_kib(process.pid), store_bytes(contest), used, count)
            rows.append(row)
            print(f"{row[0]:6.1f} {row[1] / 1024:8.1f} {row[2] / 1024:10.0f} "
                  f"{row[3] / 1024:8.0f} {row[4]:6d}", flush=True)
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
            writer.writerow(["minutes", "rss_kib", "files_bytes", "db_bytes", "games"])
            writer.writerows(rows)
    summary(rows)


def summary(rows: list[tuple[float, int, int, int, int]]) -> None:
    """RSS after warm-up against the end, and store bytes per game after the first sample
    with games (the schema and the uploads' rows are there from the start)."""
    warm = next((r for r in rows if r[0] >= 2.0), rows[0])
    last = rows[-1]
    print(f"rss: {warm[1] / 1024:.1f} MiB at {warm[0]:.1f} min, {last[1] / 1024:.1f} MiB at "
          f"{last[0]:.1f} min; peak {max(r[1] for r in rows) / 1024:.1f} MiB")
    first = next((r for r in rows if r[4] > 0), None)
    if first and last[4] > first[4]:
        per = (last[3] - first[3]) / (last[4] - first[4])
        print(f"database: {first[3] / 1024:.0f} KiB at {first[4]} games, {last[3] / 1024:.0f} "
              f"KiB at {last[4]} games: {per:.0f} bytes per game; files with the WAL "
              f"{last[2] / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
