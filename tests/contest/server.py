"""A real contest server for the API tests: Hypercorn on a free loopback port, run by trio in a
thread of the test process (so a test may give it a clock of its own), stopped by cancelling
its nursery from the test's thread."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import trio

from craits.contest.api import Contest
from craits.contest.service import Listen, open_contest, serve_contest
from craits.contest.store import ContestStore
from craits.contest.template import contest_toml
from craits.contest.tokens import new_token, token_digest


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: float = 1_900_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@dataclass
class Served:
    """A contest being served, and where."""

    url: str
    contest: Contest
    token: trio.lowlevel.TrioToken | None = None
    """The server's trio loop, for a test that runs a task beside it (``trio.from_thread``)."""


def make_contest(directory: Path, settings: str = "", names: tuple[str, ...] = ()
                 ) -> dict[str, str]:
    """A contest directory (the template, with ``settings`` appended as TOML) and
    contestants; returns their tokens."""
    directory.mkdir(parents=True, exist_ok=True)
    text = contest_toml("Test cup")
    (directory / "contest.toml").write_text(_merge(text, settings))
    store = ContestStore.open(directory / "contest.db")
    tokens = {}
    for name in names:
        tokens[name] = new_token()
        store.add_contestant(name, token_digest(tokens[name]), 0.0)
    store.close()
    return tokens


def _merge(template: str, settings: str) -> str:
    """The template with keys replaced by ``settings`` (``table.key = value`` lines)."""
    lines = template.splitlines()
    for line in settings.strip().splitlines():
        dotted, value = (part.strip() for part in line.split("=", 1))
        table, _, key = dotted.rpartition(".")
        section = f"[{table}]" if table else None
        start = lines.index(section) + 1 if section else 0
        for i in range(start, len(lines)):
            if lines[i].startswith("[") and section is None:
                break
            if lines[i].split("=")[0].strip().lstrip("# ") == key:
                lines[i] = f"{key} = {value}"
                break
        else:
            raise AssertionError(f"no key {dotted} in the template")
    return "\n".join(lines) + "\n"


@contextmanager
def serving(directory: Path, clock: Clock | None = None) -> Iterator[Served]:
    """Serve the contest in ``directory``; yields it once it listens."""
    contest = open_contest(directory, clock or Clock())
    urls: queue.Queue[list[str] | BaseException] = queue.Queue()
    handles: dict[str, object] = {}

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            handles["token"] = trio.lowlevel.current_trio_token()
            handles["scope"] = nursery.cancel_scope
            nursery.start_soon(serve_contest, contest, Listen("127.0.0.1", 0), urls.put)

    def run() -> None:
        try:
            trio.run(main)
        except BaseException as exc:  # reported to the test thread
            urls.put(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    got = urls.get(timeout=30)
    if isinstance(got, BaseException):
        raise got
    try:
        token = handles["token"]
        assert isinstance(token, trio.lowlevel.TrioToken)
        yield Served(got[0], contest, token)
    finally:
        scope = handles["scope"]
        assert isinstance(scope, trio.CancelScope)
        token = handles["token"]
        assert isinstance(token, trio.lowlevel.TrioToken)
        trio.from_thread.run_sync(scope.cancel, trio_token=token)
        thread.join(timeout=30)
        contest.store.close()


@pytest.fixture
def contest(tmp_path: Path) -> Iterator[tuple[Served, dict[str, str]]]:
    """A contest of three (alice, bob, carol) served for one test, with their tokens: the
    pages' tests in a browser share it."""
    tokens = make_contest(tmp_path / "cup", names=("alice", "bob", "carol"))
    with serving(tmp_path / "cup") as served:
        yield served, tokens
