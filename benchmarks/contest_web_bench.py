"""The contest's pages under a bounded load of readers on loopback, while the real service plays
its ladder: issue 32's target (p99 under 100 ms, games/s within 10% of no readers, memory flat).

Usage::

    .venv/bin/python benchmarks/contest_web_bench.py [--loads 200/50] [--seconds 30]
        [--repeats 3] [--poll-ms 1000-2000] [--bots 3] [--serve-args "--workers 2"]
        [--nice 10 | --idle] [--no-etag] [--python-pollers] [--watcher-pause-s 0]
    .venv/bin/python benchmarks/contest_web_bench.py --step-cost GAMES

The service is the real one, as an organiser runs it (``contest_setup``: ``craits contest
init``, ``add``, ``serve`` as a process of its own, with ``--serve-args``, by default
``--workers 2``: the ladder's tables played in table worker processes, which record their games
and send the web process the live steps; then ``submit`` over HTTP of one-file bots playing the
bundled random bot, the quickest real bot: sandboxed, validated, seated by the matchmaker,
every game on the live pages). Once games are being recorded, windows of ``--seconds`` follow
in one run, without readers and with them, each load bracketed by windows without: ``quiet,
load, quiet, load, quiet, ...`` (``--repeats`` loads of each kind); a load's games per second is
compared with the mean of the two quiet windows around it, so the service's own drift and the
machine's other work (it is shared) do not pass for the readers' cost.

The readers, each kind in processes of their own, none in this one:

- **pollers**: ``wrk`` (a C load generator: the previous Python one managed 56-75 of the 200
  requests a second asked, so it measured itself), one connection per poller, each
  ``GET /`` after a pause drawn uniformly from ``--poll-ms`` (by default 1-2 s: a page left
  open and refreshed, about 133 requests a second for 200 pollers), with ``If-None-Match``,
  as a browser revalidating does, so the answer is a ``304`` while the board is unchanged.
  wrk's Lua keeps state per thread, not per connection, so after a thread sees a new ETag its
  next connections-per-thread requests go without ``If-None-Match`` (each reader fetching the
  changed page once, as browsers would), then the rest with the new tag. Its latency
  percentiles are wrk's own (from writing a request to reading its answer; the pause is not
  counted). wrk is installed with ``apt-get install -y wrk`` if missing (given 120 s); if
  that fails the pollers run in Python, with a note (``--python-pollers`` forces that);
- **watchers** (one Python process, ``raw_watchers``: keep-alive connections on raw sockets,
  one ``selectors`` loop; the trio and httpx watchers before them took 17-19% of a core, as
  much as the web process's work for them, all of it from the games' two cores): each fetches
  ``/live``, follows the newest game listed (the one that started last) over its stream
  (``/live/KEY/events``) to its end, then again (at once; with ``--watcher-pause-s S``
  after a pause drawn from 0..S, a person reading the result: at once, all 50 switch games at
  the same instant, a herd of list fetches and new streams that each get the game so far).
  With ``--tv`` each watcher follows the TV instead (``/tv/events``: one stream, game after
  game, as the ``/tv`` page does), which asks nothing of the server between games.
  A watcher's *lag* is the time from the game's recording in the table worker (the store's
  ``finished``, wall clock) to the ``end`` event reaching the watcher: the relay
  worker -> web process -> paced stream -> reader, which is how late the TV is;
- **the probe**: one more poller alone in a process of its own, every 0.1 s, in every window,
  quiet ones too: the server's latency without any load, and with it.

``--step-cost GAMES`` measures instead, without the service, what the live feed costs a table
worker per game: random games of 4 seats played with the engine in this process, each move fed
to a ``tableworker.SentFeed`` whose messages are pickled as the worker's connection pickles
them, in four variants taken in turn game by game (so the machine's noise falls on all alike):
no feed (the game alone, subtracted from the others), the organiser's whole steps for every
game and each message sent alone (as before), whole steps on demand with nobody looking, and
that with the messages batched (``Batched``, flushed every 20 messages: about what a worker
batches in ``BATCH_S`` at the random bots' pace).

CPU: the machine has 2 cores, shared by the service, its table workers, the sandboxed bots and
the readers. On a real contest the readers are on other machines, so here they should take a
core only when the contest leaves one. By default they (wrk and the watchers) run at niceness
``--nice`` (10) in this bench's session, which is the service's and its table workers' (with
the kernel's autogroups, on by default, a niceness weighs only against threads of the same
session): they deliver the load asked, but on a machine the games keep busy they take a core
from the games at times (17-18% of a core on an idle machine), which the games/s ratio then
counts too. ``--idle`` runs them as the kernel's idle class instead (``SCHED_IDLE``, ``chrt
--idle 0``) in a session of their own whose autogroup is at niceness 19 (``idle_argv``): they
take no core anything else wants, so the ratio measures what the readers cost the service
alone; but where the cores are full they fall behind the load asked (their requests and
streams are printed), and the latencies are then those of a lighter load. Their CPU is
measured and printed (``readers' CPU``); their latency includes their waits for a core, which
makes the latencies they print pessimistic. The probe runs at the normal priority, in this
bench's session.

``--loads P/W@N``: the web process's threads at niceness N during that window; ``P/W~N``: the
table workers' threads at niceness N during that window (``[ladder] worker_nice`` the rest of
the time; their bots are not touched), so that two priorities compare in interleaved windows of
one run.

Printed per load: games/s with readers and the quiet mean around it, their ratio; the pollers'
requests, their 304s, median and p99 latency (wrk); the list fetches' median and p99; the
watchers' streams, messages, steps, lag median and p99; the probe's median and p99 (and in the
quiet window before); the web process's CPU share of a core (quiet), the readers' CPU share;
how long the web process's event loop thread waited for a core while ready to run, in ms a
second (``waited_s``: the latency's part that is contention, not work);
the web process's and the table workers' RSS. At the end the RSS over the whole run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import random
import re
import resource
import shlex
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import trio

sys.path.insert(0, str(Path(__file__).resolve().parent))
import contest_setup as setup  # sibling modules of the benchmarks
from raw_watchers import Counts, WatcherLoop

POLL_LUA = r"""
-- Pollers: each connection GET / after a pause of lo..hi ms (its first one too), with
-- If-None-Match (contest_web_bench.py's doc says how a changed page is fetched once per reader).
local lo, hi = tonumber(os.getenv("POLL_LO_MS")), tonumber(os.getenv("POLL_HI_MS"))
local etag = os.getenv("POLL_ETAG") == "1"
local per_thread = tonumber(os.getenv("POLL_PER_THREAD"))
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
  current, fresh, n200, n304, nother = nil, 0, 0, 0, 0
end

function delay()
  return math.random(lo, hi)
end

function request()
  if etag and current ~= nil and fresh <= 0 then
    return wrk.format("GET", "/", {["If-None-Match"] = current})
  end
  fresh = fresh - 1
  return wrk.format("GET", "/")
end

function response(status, headers, body)
  if status == 200 then n200 = n200 + 1
  elseif status == 304 then n304 = n304 + 1
  else nother = nother + 1 end
  local tag = headers["etag"] or headers["ETag"]
  if tag ~= nil and tag ~= current then
    current, fresh = tag, per_thread - 1
  end
end

function done(summary, latency, requests)
  local a, b, c = 0, 0, 0
  for _, t in ipairs(threads) do
    a, b, c = a + t:get("n200"), b + t:get("n304"), c + t:get("nother")
  end
  local e = summary.errors
  io.write(string.format(
    "WRK {\"requests\": %d, \"ok\": %d, \"not_modified\": %d, \"other\": %d, " ..
    "\"errors\": %d, \"p50_ms\": %.3f, \"p99_ms\": %.3f, \"max_ms\": %.3f}\n",
    summary.requests, a, b, c, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
"""


# ---- the readers' processes -------------------------------------------------------------------


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else math.nan


@dataclass
class Tally(Counts):
    """What a readers' process measured (printed as JSON, read back by ``window``): the
    watchers' ``Counts`` (``errors`` theirs), and the Python pollers' figures
    (``--python-pollers`` only)."""

    poll_ms: list[float] = field(default_factory=list)
    """The Python pollers' latencies."""
    not_modified: int = 0
    poll_errors: int = 0
    cpu_s: float = 0.0


async def poller(client: httpx.AsyncClient, tally: Tally, lo_s: float, hi_s: float,
                 etag: bool) -> None:
    """A poller in Python (when wrk is missing): as wrk's, one per connection."""
    seen: str | None = None
    while True:
        await trio.sleep(random.uniform(lo_s, hi_s))
        headers = {"If-None-Match": seen} if etag and seen else {}
        started = time.perf_counter()
        try:
            response = await client.get("/", headers=headers)
            if response.status_code not in (200, 304):
                response.raise_for_status()
            tally.poll_ms.append(1000 * (time.perf_counter() - started))
            tally.not_modified += response.status_code == 304
            seen = response.headers.get("etag", seen)
        except httpx.HTTPError:
            tally.poll_errors += 1


def readers(url: str, watchers: int, pollers: int, seconds: float, lo_s: float, hi_s: float,
            etag: bool, pause_s: float, tv: bool) -> None:
    """The watchers' process (and the Python pollers'): runs ``seconds``, prints its
    ``Tally`` as JSON."""
    tally = Tally()

    async def main() -> None:
        limits = httpx.Limits(max_connections=pollers + 10,
                              max_keepalive_connections=pollers + 10)
        async with httpx.AsyncClient(base_url=url, timeout=30, limits=limits) as client:
            with trio.move_on_after(seconds):
                async with trio.open_nursery() as nursery:
                    for _ in range(pollers):
                        nursery.start_soon(poller, client, tally, lo_s, hi_s, etag)

    watching = threading.Thread(target=WatcherLoop(url, watchers, pause_s, tv, tally).run,
                                args=(seconds,))
    watching.start()
    if pollers:
        trio.run(main)
    watching.join()
    tally.cpu_s = time.process_time()
    print(json.dumps(tally.__dict__), flush=True)


def probe(url: str, seconds: float) -> None:
    """The probe's process: ``GET /`` every 0.1 s for ``seconds`` (revalidating, as a
    poller), from a blocking client alone in its process; prints its latencies in ms."""
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
    print(json.dumps({"ms": latencies, "cpu_s": time.process_time()}), flush=True)


def find_wrk() -> str | None:
    """``wrk``, installed with apt if missing and possible (given 120 s); None if not."""
    if shutil.which("wrk") is None:
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            subprocess.run(["apt-get", "install", "-y", "wrk"], capture_output=True,
                           timeout=120, check=False)
    return shutil.which("wrk")


# ---- one window ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Load:
    """One load window's spec (``--loads``)."""

    pollers: int
    watchers: int
    web_nice: int | None = None
    """The web process's threads' niceness during the window (``@N``)."""
    workers_nice: int | None = None
    """The table workers' niceness during the window (``~N``)."""

    def __str__(self) -> str:
        return (f"{self.pollers}/{self.watchers}"
                + ("" if self.web_nice is None else f"@{self.web_nice}")
                + ("" if self.workers_nice is None else f"~{self.workers_nice}"))


QUIET = Load(0, 0)


@dataclass(frozen=True, slots=True)
class Window:
    """One window's measures."""

    pollers: int
    watchers: int
    seconds: float
    games: int
    polls: dict[str, Any]
    """wrk's figures (``POLL_LUA``'s ``done``), or the Python pollers' in the same form."""
    tally: Tally
    lags_ms: list[float]
    probe_ms: list[float]
    web_cpu_s: float
    web_wait_s: float
    """How long the web process's event loop thread (its main thread) was ready to run but
    waited for a core (``/proc/PID/schedstat``): the part of its latency that is the machine's
    contention, not its own work."""
    workers_cpu_s: float
    """The table workers' CPU (their bots' not included)."""
    readers_cpu_s: float
    rss_mb: float
    workers_rss_mb: float
    load: Load
    """The window's spec (``QUIET`` without readers)."""

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds


def lags(contest: Path, ends: list[tuple[int, float]]) -> list[float]:
    """The watchers' lags in ms: each ``end``'s arrival after its game's recording."""
    if not ends:
        return []
    db = sqlite3.connect(f"file:{contest / 'contest.db'}?mode=ro", uri=True, timeout=30)
    try:
        marks = ", ".join("?" * len(ends))
        finished = dict(db.execute(f"SELECT id, finished FROM games WHERE id IN ({marks})",
                                   [game for game, _ in ends]).fetchall())
    finally:
        db.close()
    return [1000 * (at - finished[game]) for game, at in ends if game in finished]


@dataclass(frozen=True, slots=True)
class Options:
    seconds: float
    lo_ms: int
    hi_ms: int
    etag: bool
    nice: int | None
    """The readers' niceness; None: the idle class (``--idle``, ``idle_argv``)."""
    wrk: str | None
    tmp: Path
    watcher_pause_s: float
    tv: bool
    """Watchers follow ``/tv/events`` (``--tv``)."""




def idle_argv(argv: list[str]) -> list[str]:
    """``argv`` run as the kernel's idle class, its session's autogroup at niceness 19 (the
    process is to be started in a session of its own: module doc)."""
    return ["sh", "-c", 'echo 19 > /proc/self/autogroup 2>/dev/null; exec chrt --idle 0 "$@"',
            "sh", *argv]


def window(service: setup.Service, contest: Path, load: Load, options: Options) -> Window:
    """``seconds`` of the service with ``load``'s pollers and watchers reading it, and its
    niceness for the web process's threads (not its children) or the table workers'."""
    url, seconds = service.url, options.seconds
    pollers, watchers = load.pollers, load.watchers
    if load.web_nice is not None:
        renice(service.pid, load.web_nice)
    workers_were = {}
    if load.workers_nice is not None:
        for worker in setup.below(service.pid)[0]:
            workers_were[worker] = nice_of(worker)
            renice(worker, load.workers_nice)

    def reading(argv: list[str]) -> list[str]:
        return idle_argv(argv) if options.nice is None else [
            "nice", "-n", str(options.nice), *argv]

    apart = options.nice is None  # the idle class's own session (module doc)
    games0, web0 = setup.games(contest), setup.cpu_s(service.pid)
    wait0 = waited_s(service.pid)
    workers0 = workers_cpu(service.pid)
    children0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    me = [sys.executable, __file__]
    prober = subprocess.Popen([*me, "--probe", url, str(seconds)], stdout=subprocess.PIPE,
                              text=True)
    python_pollers = pollers if options.wrk is None else 0
    reader = None
    if watchers or python_pollers:
        reader = subprocess.Popen(
            reading([*me, "--readers", url, str(watchers), str(python_pollers), str(seconds),
             f"{options.lo_ms}-{options.hi_ms}", str(int(options.etag)),
             str(options.watcher_pause_s), str(int(options.tv))]),
            stdout=subprocess.PIPE, text=True, start_new_session=apart)
    wrk = None
    if pollers and options.wrk is not None:
        threads = 2
        script = options.tmp / "poll.lua"
        script.write_text(POLL_LUA)
        wrk = subprocess.Popen(
            reading([options.wrk, "-t", str(threads), "-c", str(pollers), "-d",
                     f"{seconds:g}s", "--timeout", "10s", "-s", str(script), url + "/"]),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            start_new_session=apart,
            env={**os.environ, "POLL_LO_MS": str(options.lo_ms),
                 "POLL_HI_MS": str(options.hi_ms), "POLL_ETAG": str(int(options.etag)),
                 "POLL_PER_THREAD": str(math.ceil(pollers / threads))})
    probed = json.loads(prober.communicate(timeout=seconds + 120)[0])
    tally = Tally()
    if reader is not None:
        tally = Tally(**json.loads(reader.communicate(timeout=seconds + 120)[0]))
    polls: dict[str, Any] = {}
    if wrk is not None:
        out = wrk.communicate(timeout=seconds + 120)[0]
        found = re.search(r"^WRK (\{.*\})$", out, re.MULTILINE)
        if found is None:
            raise SystemExit(f"wrk said:\n{out}")
        polls = json.loads(found.group(1))
    elif python_pollers:
        polls = {"requests": len(tally.poll_ms), "not_modified": tally.not_modified,
                 "errors": tally.poll_errors, "p50_ms": quantile(tally.poll_ms, 0.5),
                 "p99_ms": quantile(tally.poll_ms, 0.99), "max_ms": max(tally.poll_ms or [0])}
    elapsed = time.perf_counter() - started
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    children_cpu = (children.ru_utime - children0.ru_utime) + (children.ru_stime
                                                               - children0.ru_stime)
    if load.web_nice is not None:
        renice(service.pid, 0)
    for worker, was in workers_were.items():
        renice(worker, was)
    helpers, _ = setup.below(service.pid)
    workers = workers_cpu(service.pid)
    return Window(pollers, watchers, elapsed, setup.games(contest) - games0, polls, tally,
                  lags(contest, tally.ends), probed["ms"], setup.cpu_s(service.pid) - web0,
                  waited_s(service.pid) - wait0,
                  sum(cpu - workers0.get(pid, 0.0) for pid, cpu in workers.items()),
                  children_cpu - probed["cpu_s"], setup.rss_kib(service.pid) / 1024,
                  sum(setup.rss_kib(p) for p in helpers) / 1024, load)


def renice(pid: int, niceness: int) -> None:
    """Every thread of ``pid`` at ``niceness`` (Linux's niceness is a thread's)."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError, ValueError):
            os.setpriority(os.PRIO_PROCESS, int(task.name), niceness)


def waited_s(pid: int) -> float:
    """Seconds ``pid``'s main thread has waited for a core while ready to run (its
    ``schedstat``'s second field, in ns; 0 where the kernel keeps no such count)."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def nice_of(pid: int) -> int:
    """A process's niceness (its main thread's)."""
    return os.getpriority(os.PRIO_PROCESS, pid)


def workers_cpu(pid: int) -> dict[int, float]:
    """Each table worker's CPU seconds so far."""
    found = {}
    for worker in setup.below(pid)[0]:
        with contextlib.suppress(OSError):
            found[worker] = setup.cpu_s(worker)
    return found


def step_cost(games: int) -> None:
    """The live feed's CPU per game in a table worker (module doc), printed."""
    from multiprocessing.reduction import ForkingPickler

    from craits.contest.tableworker import Batched, SentFeed
    from craits.engine import Game, Rules

    class Pickled:
        def send(self, message: Any) -> None:
            ForkingPickler.dumps(message)

    def play(seed: int, variant: str) -> tuple[float, int]:
        rng = random.Random(seed)
        game = Game.new(Rules(), 4, seed)
        batched = Batched(Pickled())
        feed = None if variant == "none" else SentFeed(
            batched if variant == "batched" else Pickled(), on_demand=variant != "whole")
        observe = feed.start("1-0", ["a", "b", "c", "d"]) if feed else None
        started, moves = time.process_time(), 0
        while True:
            if observe is not None:
                observe(game)
                if moves % 20 == 0:
                    batched.flush()
            if game.is_over:
                break
            game.apply(rng.choice(game.legal_moves()))
            moves += 1
        batched.flush()
        return time.process_time() - started, moves

    variants = ["none", "whole", "on demand", "batched"]
    spent: dict[str, list[float]] = {v: [] for v in variants}
    moves = 0
    for seed in range(games):
        for variant in variants[seed % 4:] + variants[:seed % 4]:
            cpu, made = play(seed, variant)
            spent[variant].append(cpu)
        moves += made
    base = statistics.mean(spent["none"])
    print(f"{games} random games of 4 seats, {moves / games:.0f} moves a game; CPU ms a "
          f"game: the game alone {1000 * base:.1f}; the live feed's part:")
    for variant in variants[1:]:
        extra = statistics.mean(spent[variant]) - base
        print(f"  {variant:10s} {1000 * extra:6.1f} ms a game, {1e6 * extra * games / moves:5.1f}"
              " us a move")


# ---- the run ---------------------------------------------------------------------------------


def report(load: Window, before: Window, after: Window) -> str:
    """One load's line: against the quiet windows around it."""
    quiet = (before.games_per_s + after.games_per_s) / 2
    quiet_cpu = (before.web_cpu_s / before.seconds + after.web_cpu_s / after.seconds) / 2
    ratio = load.games_per_s / quiet if quiet else math.nan
    p, t = load.polls, load.tally
    return (f"{load.load!s:>11} {load.games_per_s:5.2f} ({quiet:4.2f}) "
            f"{ratio:5.0%} | {p.get('requests', 0):5d} {p.get('not_modified', 0):5d} "
            f"{p.get('p50_ms', math.nan):6.1f} {p.get('p99_ms', math.nan):7.1f} | "
            f"{quantile(t.list_ms, 0.5):6.1f} {quantile(t.list_ms, 0.99):7.1f} | "
            f"{t.streams:4d} {t.messages:5d} {t.steps:6d} {quantile(load.lags_ms, 0.5):6.0f} "
            f"{quantile(load.lags_ms, 0.99):6.0f} | {quantile(load.probe_ms, 0.5):5.1f} "
            f"{quantile(load.probe_ms, 0.99):6.1f} ({quantile(before.probe_ms, 0.5):4.1f} "
            f"{quantile(before.probe_ms, 0.99):5.1f}) | {p.get('errors', 0) + t.errors:3d} | "
            f"{load.web_cpu_s / load.seconds:4.0%} ({quiet_cpu:4.0%}) "
            f"{load.readers_cpu_s / load.seconds:4.0%} | "
            f"{1000 * load.web_wait_s / load.seconds:4.0f} "
            f"({1000 * before.web_wait_s / before.seconds:3.0f}) | "
            f"{per_game(load.web_cpu_s, load)} "
            f"({per_game(before.web_cpu_s, before)}) {per_game(load.workers_cpu_s, load)} "
            f"({per_game(before.workers_cpu_s, before)}) | {load.rss_mb:5.1f} "
            f"{load.workers_rss_mb:6.1f}")


def per_game(cpu_s: float, window: Window) -> str:
    """CPU ms per game recorded in ``window``."""
    return f"{1000 * cpu_s / window.games:4.0f}" if window.games else "   -"


HEADER = ("load: pollers/watchers | games/s (quiet around) ratio | polls: requests, 304s, "
          "median, p99 ms | live list: median, p99 ms | watchers: streams, messages, steps, "
          "lag median, p99 ms | probe median, p99 ms (quiet before) | errors | web process CPU "
          "(quiet), readers' CPU (share of a core) | web loop's wait for a core, ms a second "
          "(quiet before) | CPU ms a game: web process (quiet before), "
          "table workers (quiet before) | RSS MB: web, table workers")


def parse_loads(text: str) -> list[Load]:
    """``P/W``, then optionally ``@N`` (the web process at niceness N during that load) and
    ``~N`` (the table workers at niceness N), for each load."""
    loads = []
    for part in text.split(","):
        found = re.fullmatch(r"(\d+)(?:/(\d+))?(?:@(-?\d+))?(?:~(\d+))?", part.strip())
        if found is None:
            raise SystemExit(f"--loads: {part!r} is not P/W[@N][~N]")
        pollers, watchers, web, workers = found.groups()
        loads.append(Load(int(pollers), int(watchers or 0),
                          None if web is None else int(web),
                          None if workers is None else int(workers)))
    return loads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--loads", default="200/50",
                        help="comma-separated POLLERS/WATCHERS[@NICE][~NICE], one load "
                        "window each (@NICE: the web process's niceness during that window, "
                        "~NICE: the table workers')")
    parser.add_argument("--seconds", type=float, default=30.0, help="each window's length")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--poll-ms", default="1000-2000",
                        help="a poller's pause before each request, LO-HI ms (uniform)")
    parser.add_argument("--bots", type=int, default=3,
                        help="contestants (random bots); 0: the pages alone, no games")
    parser.add_argument("--serve-args", default="--workers 2",
                        help="more arguments for craits contest serve")
    parser.add_argument("--nice", type=int, default=10, help="the readers' niceness")
    parser.add_argument("--idle", action="store_true",
                        help="the readers as the idle class, in a session of their own")
    parser.add_argument("--no-etag", action="store_true",
                        help="pollers fetch the whole page every time (no If-None-Match)")
    parser.add_argument("--python-pollers", action="store_true",
                        help="pollers in Python, not wrk")
    parser.add_argument("--step-cost", type=int, metavar="GAMES",
                        help="measure the live feed's CPU per game in a worker instead")
    parser.add_argument("--probe", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--watcher-pause-s", type=float, default=0.0,
                        help="a watcher's pause after a game's end, drawn from 0..this")
    parser.add_argument("--tv", action="store_true",
                        help="watchers follow the TV (/tv/events: one stream, game after "
                        "game) instead of the live list and each game's stream")
    parser.add_argument("--readers", nargs=8, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.step_cost:
        step_cost(args.step_cost)
        return
    if args.probe:
        probe(args.probe[0], float(args.probe[1]))
        return
    if args.readers:
        url, watchers, pollers, seconds, span, etag, pause, tv = args.readers
        lo, _, hi = span.partition("-")
        readers(url, int(watchers), int(pollers), float(seconds), int(lo) / 1000,
                int(hi) / 1000, etag == "1", float(pause), tv == "1")
        return
    lo_ms, _, hi_ms = args.poll_ms.partition("-")
    wrk = None if args.python_pollers else find_wrk()
    if wrk is None and not args.python_pollers:
        print("note: wrk is missing and apt-get could not install it (apt-get install -y "
              "wrk as root): the pollers run in Python, which cannot keep up with 200",
              flush=True)
    readers_at = "as SCHED_IDLE" if args.idle else f"under nice -n {args.nice}"
    watching = ("the TV's stream, game after game" if args.tv
                else "the newest live game's stream to its end, again")
    print(f"pollers: {'wrk' if wrk else 'Python'}, GET / after {lo_ms}-{hi_ms} ms each"
          f"{', If-None-Match' if not args.no_etag else ', whole page each time'}; watchers: "
          f"{watching}; readers {readers_at}; windows "
          f"of {args.seconds:g} s; serve {args.serve_args}; "
          f"{args.bots} random bots", flush=True)
    with tempfile.TemporaryDirectory(prefix="contest-web-bench-") as tmp:
        root = Path(tmp)
        contest = root / "contest"
        setup.init(contest, "Bench cup")
        entrants = setup.enter(contest, ["random"] * args.bots, root)
        service = setup.Service(contest, shlex.split(args.serve_args))
        try:
            for entrant in entrants:
                setup.submit(service.url, entrant)
            if entrants:  # --bots 0: the pages alone, no game played
                setup.wait_for_games(contest, 10, service)
            print(f"serving at {service.url}; games recorded before the first window: "
                  f"{setup.games(contest)}", flush=True)
            options = Options(args.seconds, int(lo_ms), int(hi_ms or lo_ms), not args.no_etag,
                              None if args.idle else args.nice, wrk, root,
                              args.watcher_pause_s, args.tv)
            lines: list[str] = []
            quiet_rates = []
            rss = [setup.rss_kib(service.pid) / 1024]
            last = window(service, contest, QUIET, options)
            quiet_rates.append(last.games_per_s)
            print(HEADER, flush=True)
            for _ in range(args.repeats):
                for spec in parse_loads(args.loads):
                    load = window(service, contest, spec, options)
                    after = window(service, contest, QUIET, options)
                    quiet_rates.append(after.games_per_s)
                    rss += [load.rss_mb, after.rss_mb]
                    lines.append(report(load, last, after))
                    print(lines[-1], flush=True)
                    last = after
        finally:
            service.stop()
    print(f"\n{HEADER}")
    for line in lines:
        print(line)
    print(f"quiet windows' games/s: {', '.join(f'{r:.2f}' for r in quiet_rates)}; "
          f"median {statistics.median(quiet_rates):.2f}")
    print(f"web process RSS over the run (MB): {', '.join(f'{r:.1f}' for r in rss)}")


if __name__ == "__main__":
    main()
