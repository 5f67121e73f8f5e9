"""The contest's pages under a bounded load of readers on loopback, while the real service plays
its ladder.

Usage::

    .venv/bin/python benchmarks/contest_web_bench.py [--loads 50/10,200/50] [--seconds 30]
        [--repeats 3] [--poll-s 1.0] [--bots 3] [--serve-args "--workers 2"] [--no-etag]

The service is the real one, as an organiser runs it: ``craits contest init``, ``add``, then
``craits contest serve`` as a process of its own (``--serve-args``, by default ``--workers 2``:
the ladder's tables are played in table worker processes, which record their games and send the
web process each game's public steps for the live pages), and ``submit`` over HTTP of one-file
bots playing the bundled random bot (the quickest real bot: sandboxed, validated, seated by the
matchmaker, every game on the live pages). Once games are being recorded, windows of
``--seconds`` follow in one run, without readers and with them, each load bracketed by windows
without: ``quiet, load 1, quiet, load 2, quiet, ...``, ``--repeats`` times; a load's games per
second is compared with the mean of the two quiet windows around it, so the service's own
drift (a ladder warming up, the machine's other work) does not pass for the readers' cost.

The readers, in this process, on one trio loop, one httpx client reusing its connections:

- a poller is a contestant keeping the leaderboard open: ``GET /`` every ``--poll-s`` seconds,
  with the ``If-None-Match`` of the last page it got, as a browser revalidating does (a ``304``
  when the board has not changed; ``--no-etag`` asks for the whole page every time);
- a watcher is a spectator on "TV": ``GET /live`` (the list), then one of the games listed
  followed over its stream (``/live/KEY/events``) to its end, then again;
- and in every window, quiet ones too, a probe: one more poller alone in a process of its own,
  every 0.1 s (``probe``), whose latency is the server's without the readers' own queueing.

Printed per load: games/s, the page latencies (median, p99, max over every poll and every
list fetch), the watchers' streams and steps, errors, the service's RSS (the web process; the
table workers' beside it), the web process's CPU time per page request over the quiet rate
and its share of a core with and without readers (``/proc``'s utime+stime: what the readers
cost the server, their own CPU excluded), and this process's CPU (the readers' cost, which
shares the machine's cores).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shlex
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import trio

CRAITS = [sys.executable, "-m", "craits"]
_URL = re.compile(r"serving .* at (https?://\S+)")
_LIVE = re.compile(r'href="/live/([^"]+)"')
TICKS = os.sysconf("SC_CLK_TCK")


def craits(*args: str | Path) -> str:
    """One ``craits`` command to its end; its stdout."""
    done = subprocess.run([*CRAITS, *map(str, args)], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise SystemExit(f"craits {' '.join(map(str, args))} failed:\n{done.stderr}")
    return done.stdout


# ---- the service: its process, memory, CPU and games ---------------------------------------


def serve(contest: Path, more: list[str]) -> tuple[subprocess.Popen[str], str]:
    """``craits contest serve`` on a free port; the process and its URL once it listens."""
    process = subprocess.Popen([*CRAITS, "contest", "serve", str(contest), "--port", "0", *more],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    found: list[str] = []
    ready = threading.Event()

    def read() -> None:  # drains stderr for the whole run (a full pipe would stall it)
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


def proc_stat(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def cpu_s(pid: int) -> float:
    """User and system CPU seconds ``pid`` has used."""
    fields = proc_stat(pid)
    return (int(fields[11]) + int(fields[12])) / TICKS


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def workers_of(pid: int) -> list[int]:
    """The service's table worker processes (its Python children; bots are theirs)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdecimal():
            try:
                if int(proc_stat(int(entry.name))[1]) == pid and b"python" in (
                        entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except (OSError, ValueError, IndexError):
                continue
    return found


def games_of(contest: Path) -> int:
    """Games recorded so far, read from the store itself."""
    db = sqlite3.connect(f"file:{contest / 'contest.db'}?mode=ro", uri=True, timeout=10)
    try:
        return int(db.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    finally:
        db.close()


def rejections(contest: Path) -> str:
    """Why the bots were rejected, if they all were (the bench cannot start then)."""
    db = sqlite3.connect(f"file:{contest / 'contest.db'}?mode=ro", uri=True, timeout=10)
    try:
        rows = db.execute("SELECT state, reason FROM versions").fetchall()
    finally:
        db.close()
    if rows and all(state == "rejected" for state, _ in rows):
        return "every bot was rejected; the first: " + str(rows[0][1])
    return ""


# ---- the readers (this process) -------------------------------------------------------------


@dataclass
class Tally:
    """What the readers measured in one window."""

    latencies: list[float] = field(default_factory=list)
    polls: int = 0
    not_modified: int = 0
    streams: int = 0
    steps: int = 0
    errors: int = 0


async def poller(client: httpx.AsyncClient, tally: Tally, poll_s: float, etag: bool) -> None:
    """A contestant keeping the leaderboard open (module doc)."""
    await trio.sleep(random.random() * poll_s)  # spread the first requests
    seen: str | None = None
    while True:
        headers = {"If-None-Match": seen} if etag and seen else {}
        started = time.perf_counter()
        try:
            response = await client.get("/", headers=headers)
            if response.status_code not in (200, 304):
                response.raise_for_status()
            tally.latencies.append(time.perf_counter() - started)
            tally.polls += 1
            tally.not_modified += response.status_code == 304
            seen = response.headers.get("etag", seen)
        except httpx.HTTPError:
            tally.errors += 1
        await trio.sleep(poll_s)


async def watcher(client: httpx.AsyncClient, tally: Tally) -> None:
    """A spectator on "TV" (module doc)."""
    await trio.sleep(random.random())
    while True:
        started = time.perf_counter()
        try:
            listing = await client.get("/live")
            listing.raise_for_status()
        except httpx.HTTPError:
            tally.errors += 1
            await trio.sleep(0.5)
            continue
        tally.latencies.append(time.perf_counter() - started)
        keys = _LIVE.findall(listing.text)
        if not keys:
            await trio.sleep(0.2)
            continue
        try:
            async with client.stream("GET", f"/live/{random.choice(keys)}/events") as response:
                tally.streams += 1
                async for line in response.aiter_lines():
                    if line.startswith("data: ["):
                        tally.steps += line.count('"i": ')
                    elif line.startswith("event: end"):
                        break
        except httpx.HTTPError:
            tally.errors += 1


def probe(url: str, seconds: float) -> None:
    """The probe's process: ``GET /`` every 0.1 s for ``seconds`` (revalidating, as a
    poller), from a blocking client alone in its process; prints its latencies in ms.

    Why: under load the readers' own trio loop queues their requests too, so their latency
    is the server's plus theirs; the probe's is the server's (and the machine's)."""
    latencies = []
    seen = ""
    with httpx.Client(base_url=url, timeout=60) as client:
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            started = time.perf_counter()
            response = client.get("/", headers={"If-None-Match": seen} if seen else {})
            latencies.append((time.perf_counter() - started) * 1000)
            seen = response.headers.get("etag", seen)
            time.sleep(0.1)
    print(" ".join(f"{ms:.2f}" for ms in latencies), flush=True)


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else 0.0


@dataclass(frozen=True, slots=True)
class Window:
    """One window's measures."""

    pollers: int
    watchers: int
    seconds: float
    games: int
    tally: Tally
    server_cpu_s: float
    client_cpu_s: float
    rss_mb: float
    workers_rss_mb: float
    probe_ms: list[float]
    """The probe's latencies (``probe``)."""

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds

    def latency_ms(self, q: float) -> float:
        return 1000 * quantile(self.tally.latencies, q)


def window(url: str, contest: Path, pid: int, pollers: int, watchers: int, seconds: float,
           poll_s: float, etag: bool) -> Window:
    """``seconds`` of the service with ``pollers`` and ``watchers`` reading it."""
    tally = Tally()
    games0, server0, client0 = games_of(contest), cpu_s(pid), time.process_time()
    started = time.perf_counter()
    prober = subprocess.Popen([sys.executable, __file__, "--probe", url, str(seconds)],
                              stdout=subprocess.PIPE, text=True)

    async def main() -> None:
        limits = httpx.Limits(max_connections=pollers + watchers + 10,
                              max_keepalive_connections=pollers + watchers + 10)
        async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as client:
            with trio.move_on_after(seconds):
                async with trio.open_nursery() as nursery:
                    for _ in range(pollers):
                        nursery.start_soon(poller, client, tally, poll_s, etag)
                    for _ in range(watchers):
                        nursery.start_soon(watcher, client, tally)
                    await trio.sleep_forever()  # a quiet window (no readers) lasts too

    trio.run(main)
    elapsed = time.perf_counter() - started
    games, server, client = games_of(contest) - games0, cpu_s(pid) - server0, \
        time.process_time() - client0
    probed, _ = prober.communicate(timeout=120)
    return Window(pollers, watchers, elapsed, games, tally, server, client, rss_mb(pid),
                  sum(rss_mb(w) for w in workers_of(pid)), [float(x) for x in probed.split()])


# ---- the run ---------------------------------------------------------------------------------


def start_contest(root: Path, bots: int, more: list[str]
                  ) -> tuple[subprocess.Popen[str], str, Path]:
    """A contest served with ``bots`` random bots uploaded; returns once games are recorded."""
    contest = root / "contest"
    craits("contest", "init", contest, "--name", "Bench cup")
    tokens = {}
    for i in range(bots):
        out = craits("contest", "add", f"random-{i}", "--dir", contest, "--json")
        found = re.search(r'"token":\s*"([^"]+)"', out)
        assert found is not None, out
        tokens[f"random-{i}"] = found.group(1)
    process, url = serve(contest, more)
    for name, token in tokens.items():
        source = root / f"{name}.py"
        source.write_text("from craits_bots.random import RandomBot\nfrom craits_sdk import run\n"
                          f"\nrun(RandomBot())\n# {name}\n")
        craits("contest", "submit", "--server", url, "--token", token, source)
    deadline = time.monotonic() + 300
    while games_of(contest) < 10:  # validated, seated, playing
        rejected = rejections(contest)
        if rejected or process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise SystemExit(f"the service recorded no games: {rejected or 'in 5 minutes'}")
        time.sleep(1)
    return process, url, contest


def parse_loads(text: str) -> list[tuple[int, int]]:
    loads = []
    for part in text.split(","):
        pollers, _, watchers = part.partition("/")
        loads.append((int(pollers), int(watchers or 0)))
    return loads


def report(load: Window, before: Window, after: Window) -> str:
    """One load's line: against the quiet windows around it."""
    quiet = (before.games_per_s + after.games_per_s) / 2
    quiet_cpu = (before.server_cpu_s / before.seconds + after.server_cpu_s / after.seconds) / 2
    requests = len(load.tally.latencies)
    extra_ms = 1000 * (load.server_cpu_s - quiet_cpu * load.seconds) / max(requests, 1)
    ratio = load.games_per_s / quiet if quiet else float("nan")
    t = load.tally
    return (f"{load.pollers:>4}/{load.watchers:<3} {load.games_per_s:5.2f} ({quiet:4.2f}) "
            f"{ratio:5.0%}  {statistics.median(t.latencies or [0]) * 1000:6.1f} "
            f"{load.latency_ms(0.99):7.1f} {load.latency_ms(1.0):7.1f} "
            f"[{quantile(load.probe_ms, 0.5):5.1f} {quantile(load.probe_ms, 0.99):6.1f} "
            f"({quantile(before.probe_ms, 0.5):4.1f} {quantile(before.probe_ms, 0.99):5.1f})]"
            f" {requests:6d} "
            f"{t.not_modified:6d} {t.streams:5d} {t.steps:7d} {t.errors:4d}  "
            f"{extra_ms:5.2f} {load.server_cpu_s / load.seconds:5.0%} ({quiet_cpu:4.0%}) "
            f"{load.client_cpu_s / load.seconds:5.0%}  "
            f"{load.rss_mb:5.1f} {load.workers_rss_mb:6.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--loads", default="50/10,200/50",
                        help="comma-separated POLLERS/WATCHERS, one load window each")
    parser.add_argument("--seconds", type=float, default=30.0, help="each window's length")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--poll-s", type=float, default=1.0, help="a poller's interval")
    parser.add_argument("--bots", type=int, default=3, help="contestants (random bots)")
    parser.add_argument("--serve-args", default="--workers 2",
                        help="more arguments for craits contest serve")
    parser.add_argument("--no-etag", action="store_true",
                        help="pollers fetch the whole page every time (no If-None-Match)")
    parser.add_argument("--probe", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe:
        probe(args.probe[0], float(args.probe[1]))
        return
    loads = parse_loads(args.loads)
    etag = not args.no_etag
    print(f"pollers: GET / every {args.poll_s:g} s"
          f"{' with If-None-Match of the last page' if etag else ', whole page each time'}; "
          "watchers: GET /live, then one listed game's /live/KEY/events to its end, again; "
          f"one trio loop, httpx, connections reused; windows of {args.seconds:g} s; "
          f"serve {args.serve_args or '(defaults)'}; {args.bots} random bots", flush=True)
    with tempfile.TemporaryDirectory(prefix="contest-web-bench-") as tmp:
        process, url, contest = start_contest(Path(tmp), args.bots, shlex.split(args.serve_args))
        try:
            print(f"serving at {url}; games recorded before the first window: "
                  f"{games_of(contest)}", flush=True)

            def quiet() -> Window:
                return window(url, contest, process.pid, 0, 0, args.seconds, args.poll_s, etag)

            lines: list[str] = []
            quiet_rates = []
            rss = [rss_mb(process.pid)]
            last = quiet()
            quiet_rates.append(last.games_per_s)
            for _ in range(args.repeats):
                for pollers, watchers in loads:
                    load = window(url, contest, process.pid, pollers, watchers, args.seconds,
                                  args.poll_s, etag)
                    after = quiet()
                    quiet_rates.append(after.games_per_s)
                    rss.append(load.rss_mb)
                    lines.append(report(load, last, after))
                    print(lines[-1], flush=True)
                    last = after
            rss.append(rss_mb(process.pid))
        finally:
            process.terminate()
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    print("\nload: pollers/watchers; games/s (quiet around it) ratio; page latency ms median "
          "p99 max [the probe's median p99 (in the quiet window before)]; page requests, of "
          "them 304; streams, steps, errors; web process CPU ms per request over quiet, its "
          "CPU share of a core (quiet); readers' CPU share; web RSS MB, workers' RSS MB")
    for line in lines:
        print(line)
    print(f"quiet windows' games/s: {', '.join(f'{r:.2f}' for r in quiet_rates)}")
    print(f"web process RSS over the run (MB): {', '.join(f'{r:.1f}' for r in rss)}")


if __name__ == "__main__":
    main()
