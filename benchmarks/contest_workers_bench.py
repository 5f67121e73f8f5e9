"""Ladder throughput of ``craits contest serve`` by where its tables are played: in the web
server's own process (``--workers 0``, as the ladder did before table workers) or in 1, 2, ...
table worker processes (``--workers N``).

Usage::

    .venv/bin/python benchmarks/contest_workers_bench.py [--bots 4] [--seconds 60]
        [--rounds 2] [--modes 0,1,2] [--short] [--dir DIR]

It sets a contest up as an organiser and contestants do (``craits contest init``, ``add``,
``serve``, then ``submit`` over HTTP of one-file bots playing the bundled greedy, lowcard and
random bots: every table sandboxed), waits until every version is rated, then for each mode
in turn, ``rounds`` times (the modes interleaved, so that a change in the machine's load falls
on all of them): starts ``serve --workers MODE`` on the same directory, waits for its first
game (warm-up: workers started, the table a stopped predecessor left replayed), and counts
the games recorded in the next ``seconds``. It prints, per run and then per mode (median over
the rounds): games per second, and the CPU seconds the service's own process spent per game
(its ``utime + stime`` from ``/proc``: what the web process pays for the games, which the table
workers take off it). No timing is asserted: it prints numbers.
"""

from __future__ import annotations

import argparse
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

CRAITS = [sys.executable, "-m", "craits"]
KINDS = {"greedy": "GreedyBot", "lowcard": "LowCardBot", "random": "RandomBot"}
_URL = re.compile(r"serving .* at (https?://\S+)")
TICKS = os.sysconf("SC_CLK_TCK")


def run(*args: str | Path) -> str:
    """One ``craits`` command to its end; its stdout."""
    done = subprocess.run([*CRAITS, *map(str, args)], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise SystemExit(f"craits {' '.join(map(str, args))} failed:\n{done.stderr}")
    return done.stdout


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def games(directory: Path) -> int:
    """Games recorded in the contest's store."""
    with sqlite3.connect(f"file:{directory / 'contest.db'}?mode=ro", uri=True,
                         timeout=30) as db:
        count: int = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    return count


class Serve:
    """``craits contest serve DIR --port 0 --workers N`` as a real process."""

    def __init__(self, directory: Path, workers: int) -> None:
        self.process = subprocess.Popen(
            [*CRAITS, "contest", "serve", str(directory), "--port", "0", "--workers",
             str(workers)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.url = ""
        found = threading.Event()

        def read() -> None:
            assert self.process.stderr is not None
            for line in self.process.stderr:
                match = _URL.search(line)
                if match and not self.url:
                    self.url = match.group(1)
                    found.set()
                elif "Traceback" in line or "error" in line.lower():
                    print(f"  serve: {line.rstrip()}", file=sys.stderr)

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(120):
            self.stop()
            raise SystemExit("serve did not start")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def setup(directory: Path, bots: int, short: bool) -> None:
    """A contest with ``bots`` rated versions (the bundled bots in turn, each its own file)."""
    run("contest", "init", directory, "--name", "workers bench")
    config = directory / "contest.toml"
    text = config.read_text().replace("per_window = 10", "per_window = 1000")
    if short:
        text = text.replace('preset = "standard"', 'preset = "standard"\nshort_game = true')
    config.write_text(text)
    tokens = [run("contest", "add", f"bot{i}", "--dir", directory).splitlines()[-1].strip()
              for i in range(bots)]
    service = Serve(directory, 1)
    try:
        for i, token in enumerate(tokens):
            kind = list(KINDS)[i % len(KINDS)]
            source = directory.parent / f"bot{i}.py"
            source.write_text(f"from craits_bots.{kind} import {KINDS[kind]}\n"
                              f"from craits_sdk import run\n\nrun({KINDS[kind]}())  # {i}\n")
            run("contest", "submit", "--server", service.url, "--token", token, source)
        deadline = time.monotonic() + 600
        while True:
            with sqlite3.connect(directory / "contest.db", timeout=30) as db:
                states = [s for (s,) in db.execute("SELECT state FROM versions")]
            if states and all(s == "rated" for s in states):
                break
            if time.monotonic() > deadline or "rejected" in states:
                raise SystemExit(f"the versions were not all rated: {states}")
            time.sleep(1)
    finally:
        service.stop()


def measure(directory: Path, workers: int, seconds: float) -> tuple[float, float]:
    """(games per second, service CPU seconds per game) of one run of ``--workers N``."""
    service = Serve(directory, workers)
    try:
        first = games(directory)
        while games(directory) == first:
            time.sleep(0.2)
        start_games, start_cpu, start = games(directory), cpu_s(service.process.pid), \
            time.monotonic()
        time.sleep(seconds)
        played = games(directory) - start_games
        spent = cpu_s(service.process.pid) - start_cpu
        elapsed = time.monotonic() - start
    finally:
        service.stop()
    return played / elapsed, spent / played if played else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--modes", default="0,1,2",
                        help="the --workers values to compare (0: in the service's process)")
    parser.add_argument("--short", action="store_true", help="short games (rules short_game)")
    parser.add_argument("--dir", type=Path, help="where the contest goes (default: a temporary "
                        "directory, removed afterwards)")
    args = parser.parse_args()
    modes = [int(m) for m in args.modes.split(",")]
    with tempfile.TemporaryDirectory() as scratch:
        directory = args.dir or Path(scratch) / "contest"
        setup(directory, args.bots, args.short)
        print(f"{args.bots} sandboxed bots, {'short' if args.short else 'standard'} games, "
              f"{args.seconds:.0f} s a run, {os.cpu_count()} CPUs", flush=True)
        results: dict[int, list[tuple[float, float]]] = {m: [] for m in modes}
        for round_ in range(1, args.rounds + 1):
            for mode in modes:
                rate, cpu = measure(directory, mode, args.seconds)
                results[mode].append((rate, cpu))
                print(f"round {round_} --workers {mode}: {rate:.3f} games/s, service CPU "
                      f"{cpu * 1000:.0f} ms a game", flush=True)
        print("median over the rounds:")
        for mode in modes:
            rate = statistics.median(r for r, _ in results[mode])
            cpu = statistics.median(c for _, c in results[mode])
            where = "in the service's process" if mode == 0 else f"{mode} worker process(es)"
            print(f"  --workers {mode} ({where}): {rate:.3f} games/s, service CPU "
                  f"{cpu * 1000:.0f} ms a game")


if __name__ == "__main__":
    main()
