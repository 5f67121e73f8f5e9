"""``craits contest`` as real processes: the command line, ``serve`` started on a free port and
read for its URL, and waiting on what they do (``until``: by polling, never by a fixed sleep)."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CRAITS = [sys.executable, "-m", "craits"]
_URL = re.compile(r"serving .* at (https?://\S+)")


def craits(*args: str | Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run one command to its end."""
    done = subprocess.run([*CRAITS, *map(str, args)], capture_output=True, text=True,
                          timeout=120, check=False)
    if check and done.returncode != 0:
        raise AssertionError(f"craits {' '.join(map(str, args))} failed ({done.returncode}):"
                             f"\n{done.stdout}\n{done.stderr}")
    return done


def craits_json(*args: str | Path) -> Any:
    return json.loads(craits(*args).stdout)


def read_store(contest: Path) -> sqlite3.Connection:
    """The contest's database, read only: a test looks beside the service, never writes."""
    return sqlite3.connect(f"file:{contest / 'contest.db'}?mode=ro", uri=True, timeout=10)


@dataclass
class Server:
    """A running ``craits contest serve``."""

    process: subprocess.Popen[str]
    url: str
    stderr: list[str] = field(default_factory=list)

    def kill(self) -> None:
        """SIGKILL: no handler runs, nothing is flushed or closed."""
        self.process.kill()
        self.process.wait(timeout=30)


@contextmanager
def serve(directory: Path, *options: str | Path) -> Iterator[Server]:
    """Start ``craits contest serve DIR --port 0 [options]``; yields once it prints its URL."""
    process = subprocess.Popen([*CRAITS, "contest", "serve", str(directory), "--port", "0",
                                *map(str, options)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    lines: list[str] = []
    found = threading.Event()

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line)
            if _URL.search(line):
                found.set()

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + 60
    while not found.wait(0.1):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise AssertionError("serve did not start:\n" + "".join(lines))
    match = next(m for m in map(_URL.search, lines) if m)
    server = Server(process, match.group(1), lines)
    try:
        yield server
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
