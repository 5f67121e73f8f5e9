"""A contest set up as its organiser and contestants set one up, for the benchmarks that measure
the real service (``contest_soak.py``, ``contest_workers_bench.py``, ``contest_ray_bench.py``,
``contest_web_bench.py``).

Why one module: each of those benchmarks needs the same real thing (``craits contest init``,
``add``, ``serve`` as a process of its own on a free port, ``submit`` over HTTP of one-file bots
that play the bundled bots, so every table is sandboxed and every version validated) and the
same readings of it (games in the store, a process's resident set and CPU time, the processes
below the service); written once here, a change to the commands or the store's schema is made
once. Nothing here measures: each benchmark decides what to read and when.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

CRAITS = [sys.executable, "-m", "craits"]
KINDS = {"greedy": "GreedyBot", "lowcard": "LowCardBot", "random": "RandomBot"}
"""The bundled bots a contestant's one-file bot can play, by name: its class."""
TICKS = os.sysconf("SC_CLK_TCK")
_URL = re.compile(r"serving .* at (https?://\S+)")


def craits(*args: str | Path) -> str:
    """One ``craits`` command to its end; its stdout (the run stops with its stderr if it
    failed)."""
    done = subprocess.run([*CRAITS, *map(str, args)], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise SystemExit(f"craits {' '.join(map(str, args))} failed:\n{done.stderr}")
    return done.stdout


# ---- the contest: its directory, contestants and bots ----------------------------------------


def init(contest: Path, name: str, edit: Callable[[str], str] | None = None) -> None:
    """``craits contest init``, then ``edit`` applied to the text of its ``contest.toml``."""
    craits("contest", "init", contest, "--name", name)
    if edit is not None:
        config = contest / "contest.toml"
        config.write_text(edit(config.read_text()))


@dataclass(frozen=True, slots=True)
class Entrant:
    """A contestant added to the contest, with its one-file bot (not yet submitted)."""

    name: str
    token: str
    source: Path


def bot_source(path: Path, kind: str, tag: str) -> Path:
    """A one-file Python bot at ``path`` that plays the bundled ``kind`` bot (``KINDS``);
    ``tag``, in a comment, makes its content (and so its version's hash) its own."""
    path.write_text(f"from craits_bots.{kind} import {KINDS[kind]}\nfrom craits_sdk import run\n"
                    f"\nrun({KINDS[kind]}())\n# {tag}\n")
    return path


def enter(contest: Path, kinds: Sequence[str], files: Path) -> list[Entrant]:
    """A contestant per kind, named ``KIND-I`` (``craits contest add``), each with its bot
    written in ``files``."""
    entrants = []
    for i, kind in enumerate(kinds):
        name = f"{kind}-{i}"
        out = craits("contest", "add", name, "--dir", contest, "--json")
        found = re.search(r'"token":\s*"([^"]+)"', out)
        assert found is not None, out
        entrants.append(Entrant(name, found.group(1),
                                bot_source(files / f"{name}.py", kind, name)))
    return entrants


def cycle(count: int, kinds: Sequence[str] = tuple(KINDS)) -> list[str]:
    """``count`` kinds, taking ``kinds`` in turn."""
    return [kinds[i % len(kinds)] for i in range(count)]


def submit(url: str, entrant: Entrant, source: Path | None = None) -> None:
    """``craits contest submit`` of the entrant's bot (or of ``source``: a new version)."""
    craits("contest", "submit", "--server", url, "--token", entrant.token,
           source or entrant.source)


# ---- the service ------------------------------------------------------------------------------


class Service:
    """``craits contest serve CONTEST --port 0 MORE`` as a process of its own, once it listens
    (its URL read from its log). ``command`` replaces ``python -m craits`` (a probe that runs
    craits in its own process); ``echo`` prints the lines of its log that tell of an error.
    Its log is read for the whole run: a full pipe would stall it."""

    def __init__(self, contest: Path, more: Sequence[str] = (), *,
                 env: Mapping[str, str] | None = None, command: Sequence[str] = CRAITS,
                 echo: bool = False, timeout: float = 120.0) -> None:
        self.process = subprocess.Popen(
            [*command, "contest", "serve", str(contest), "--port", "0", *more],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})
        self.url = ""
        found = threading.Event()

        def read() -> None:
            assert self.process.stderr is not None
            for line in self.process.stderr:
                match = _URL.search(line)
                if match and not self.url:
                    self.url = match.group(1)
                    found.set()
                elif echo and ("Traceback" in line or "error" in line.lower()):
                    print(f"  serve: {line.rstrip()}", file=sys.stderr)

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(timeout):
            self.stop()
            raise SystemExit(f"serve did not start within {timeout:.0f} s")

    @property
    def pid(self) -> int:
        return self.process.pid

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it has not ended within a minute."""
        self.process.terminate()
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


# ---- readings of the store --------------------------------------------------------------------


def _read(contest: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{contest / 'contest.db'}?mode=ro", uri=True, timeout=30)


def games(contest: Path) -> int:
    """Games recorded so far."""
    db = _read(contest)
    try:
        return int(db.execute("SELECT count(*) FROM games").fetchone()[0])
    finally:
        db.close()


def db_used_bytes(contest: Path) -> int:
    """The database's own size: its pages in use, as the WAL shows them (the files hold up
    to ~4 MB more, the WAL before a checkpoint)."""
    db = _read(contest)
    try:
        pages, free, size = (int(db.execute(f"PRAGMA {p}").fetchone()[0])
                             for p in ("page_count", "freelist_count", "page_size"))
    finally:
        db.close()
    return (pages - free) * size


def store_bytes(contest: Path) -> int:
    """The store on disk: the database, its WAL and shared memory."""
    return sum(p.stat().st_size for p in contest.glob("contest.db*"))


def states(contest: Path) -> list[tuple[str, str | None]]:
    """Every version's state and reason."""
    db = _read(contest)
    try:
        return [(str(s), r) for s, r in db.execute("SELECT state, reason FROM versions")]
    finally:
        db.close()


def wait_until_rated(contest: Path, count: int, timeout: float = 600.0) -> None:
    """Until ``count`` versions are rated (validated and on the ladder); stops the run if
    one is rejected or the time is up."""
    deadline = time.monotonic() + timeout
    while True:
        found = states(contest)
        if sum(s == "rated" for s, _ in found) >= count:
            return
        rejected = [r for s, r in found if s == "rejected"]
        if rejected or time.monotonic() > deadline:
            raise SystemExit(f"the versions were not all rated: {rejected[:1] or found}")
        time.sleep(1)


def wait_for_games(contest: Path, count: int, service: Service, timeout: float = 300.0) -> None:
    """Until ``count`` games are recorded; stops the run if the service ended or every
    version was rejected, or the time is up."""
    deadline = time.monotonic() + timeout
    while games(contest) < count:
        found = states(contest)
        if found and all(s == "rejected" for s, _ in found):
            service.stop()
            raise SystemExit(f"every bot was rejected; the first: {found[0][1]}")
        if service.process.poll() is not None or time.monotonic() > deadline:
            service.stop()
            raise SystemExit(f"the service recorded no {count} games in {timeout:.0f} s")
        time.sleep(1)


def games_and_cpu(contest: Path, options: Sequence[str], seconds: float) -> tuple[float, float]:
    """(games per second, CPU seconds of the service's own process per game) of one ``serve``
    of ``contest`` with ``options``, over the ``seconds`` after its first game: the warm-up
    (workers or actors started, versions shipped, the tables a stopped predecessor left
    replayed) is left out. The service is stopped at the end."""
    service = Service(contest, options, echo=True)
    try:
        wait_for_games(contest, games(contest) + 1, service)
        start_games, start_cpu, start = games(contest), cpu_s(service.pid), time.monotonic()
        time.sleep(seconds)
        played = games(contest) - start_games
        spent = cpu_s(service.pid) - start_cpu
        elapsed = time.monotonic() - start
    finally:
        service.stop()
    return played / elapsed, spent / played if played else float("nan")


# ---- readings of processes --------------------------------------------------------------------


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


def cpu_s(pid: int) -> float:
    """User and system CPU seconds ``pid`` has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def _children() -> dict[int, list[int]]:
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


def below(pid: int) -> tuple[list[int], list[int]]:
    """The processes below the service: its helpers (table workers: processes of ours, outside
    the sandbox) and the sandboxed bots (a ``bwrap`` and all below it)."""
    children = _children()
    helpers: list[int] = []
    sandboxed: list[int] = []
    todo = [(child, False) for child in children.get(pid, [])]
    while todo:
        process, in_sandbox = todo.pop()
        try:
            program = Path(f"/proc/{process}/cmdline").read_bytes().split(b"\0", 1)[0]
        except OSError:
            continue
        in_sandbox = in_sandbox or Path(program.decode()).name == "bwrap"
        (sandboxed if in_sandbox else helpers).append(process)
        todo += [(child, in_sandbox) for child in children.get(process, [])]
    return helpers, sandboxed
