"""Helpers for the CLI tests: a tiny tournament, what one ``craits`` run produced, reading a
results database as another process would, files the tests' runs may not write, a clock
that makes every read of the web pages' standings cost a second, and ``craits`` processes that
serve their pages (``--web``)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from tests.waiting import wait_until

TINY = """
name = "tiny"
table_size = 2
deal_sets = 1
[rules]
short_game = true
[[bots]]
name = "greedy"
[[bots]]
name = "lowcard"
"""
"""The smallest tournament: two bundled bots, one short game each way."""


@dataclass
class Result:
    """What one ``craits`` run produced."""

    status: int
    out: str
    err: str

    def json(self) -> Any:
        """stdout as the one JSON object the ``--json`` contract promises."""
        assert self.out.count("\n") == 1, f"expected exactly one line on stdout: {self.out!r}"
        return json.loads(self.out)

    def assert_usage_error(self, *fragments: str) -> None:
        """Exit 2 and exactly one ``craits: error:`` line naming the problem, no traceback."""
        assert self.status == 2, self
        assert self.out == ""
        lines = self.err.splitlines()
        assert len(lines) == 1, self.err
        assert lines[0].startswith("craits: error: ")
        assert "Traceback" not in self.err
        for fragment in fragments:
            assert fragment in lines[0]

    def assert_option_error(self, option: str, *fragments: str) -> None:
        """Exit 2 from argparse: the usage, then one error line naming ``option``; no traceback."""
        assert self.status == 2, self
        assert self.out == "" and "Traceback" not in self.err
        last = self.err.splitlines()[-1]
        assert "error: argument " in last and option in last, self.err
        for fragment in fragments:
            assert fragment in last, last


Runner = Callable[..., Result]


def done_games(db: Path) -> int:
    """Games recorded so far, read as another process would (0 before the schema exists)."""
    if not db.exists():
        return 0
    try:
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)) as con:
            return int(con.execute("SELECT COUNT(*) FROM jobs WHERE status='done'").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


NOBODY = 65534


def not_mine(*paths: Path) -> None:
    """Make ``paths`` (files, then the directories they are in) readable but not writable by
    the ``unprivileged`` runner: owned by nobody when we are root, read-only anyway."""
    for path in paths:
        if os.geteuid() == 0:
            os.chown(path, NOBODY, NOBODY)
        path.chmod(0o555 if path.is_dir() else 0o444)


class Ticks:
    """A clock that moves one second each time it is read: every full read costs 1 s."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@dataclass
class WebRun:
    """A ``craits`` process serving its pages (``--web``), what it said on stderr so far, and
    the pages' address."""

    proc: subprocess.Popen[str]
    err: list[str] = field(default_factory=list)
    url: str = ""

    def said(self, text: str) -> bool:
        return any(text in line for line in self.err)


R = TypeVar("R", bound=WebRun)


class WebRuns(Generic[R]):
    """Starts ``craits`` processes that serve pages, as a user starts them, each as ``kind``, in
    ``cwd``; ``close`` (a fixture's teardown) ends with Ctrl-C those still running."""

    def __init__(self, kind: Callable[[subprocess.Popen[str]], R], cwd: Path) -> None:
        self.kind = kind
        self.cwd = cwd
        self.runs: list[R] = []

    def start(self, argv: Sequence[str], ready: Callable[[R], bool] | None = None) -> R:
        """``craits *argv``, once ``ready`` (by default: it printed where its pages are) or once
        it has exited. Its stderr is read in a thread, line by line, into ``err``; ``url`` is
        the address it printed for its pages."""
        proc = subprocess.Popen([sys.executable, "-m", "craits", *argv], cwd=self.cwd,
                                text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        run = self.kind(proc)
        self.runs.append(run)
        assert proc.stderr is not None
        threading.Thread(target=run.err.extend, args=(proc.stderr,), daemon=True).start()
        wait_until(lambda: (run.said("web pages: ") if ready is None else ready(run))
                   or proc.poll() is not None)
        [line] = [line for line in run.err if line.startswith("web pages: ")]
        run.url = line.removeprefix("web pages: ").strip().rstrip("/")
        return run

    def close(self) -> None:
        """Ctrl-C (SIGINT) to each run still going, and wait for it to end."""
        for run in self.runs:
            if run.proc.poll() is None:
                run.proc.send_signal(signal.SIGINT)
                run.proc.communicate(timeout=60)
