"""Helpers for the CLI tests: a tiny tournament, what one ``craits`` run produced, reading a
results database as another process would, files the tests' runs may not write, and a clock
that makes every read of the web pages' standings cost a second."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
