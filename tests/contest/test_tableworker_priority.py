"""A table worker runs below the service's CPU priority (``[ladder] worker_nice``), in the
service's scheduling group: a real worker process, read from ``/proc``."""

from __future__ import annotations

import os
import time
from pathlib import Path

import trio

from craits.contest.service import open_contest
from craits.contest.tableworker import WorkerSetup
from craits.contest.tableworker_pool import TableWorker
from craits.contest.validation import ContestRun

from .server import make_contest


def _nice(pid: int) -> int:
    """A process's niceness (``/proc/PID/stat``'s 19th field)."""
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


def _autogroup(pid: int) -> str | None:
    """Its autogroup (``/autogroup-N nice K``), None without autogroups."""
    try:
        return Path(f"/proc/{pid}/autogroup").read_text()
    except OSError:
        return None


def _settled(pid: int, base: int) -> int:
    """The worker's niceness once it has lowered it (at its start, before its imports end;
    how long the process takes to start is not what is tested)."""
    deadline = time.monotonic() + 60
    while _nice(pid) == base and time.monotonic() < deadline:
        time.sleep(0.05)
    return _nice(pid)


def test_a_table_worker_runs_at_the_configured_niceness_in_the_services_group(
        tmp_path: Path) -> None:
    contest = tmp_path / "cup"
    make_contest(contest)
    served = open_contest(contest)
    run = ContestRun(contest, served.config, served.store)
    base = os.getpriority(os.PRIO_PROCESS, 0)
    assert served.config.ladder.worker_nice == 10  # the default
    found: dict[str, int | str | None] = {}

    async def main() -> None:
        lowered = TableWorker(1, WorkerSetup(contest / "contest.db", run.setting(), 7))
        level = TableWorker(2, WorkerSetup(contest / "contest.db", run.setting(), 0))
        try:
            found["lowered"] = await trio.to_thread.run_sync(_settled, lowered.pid, base)
            found["level"] = _nice(level.pid)
            found["group"] = _autogroup(lowered.pid)
            found["process group"] = os.getpgid(lowered.pid)
        finally:
            await lowered.close()
            await level.close()

    trio.run(main)
    served.store.close()
    assert found["lowered"] == min(19, base + 7)
    assert found["level"] == base  # the control: 0 leaves it at the service's
    assert found["group"] == _autogroup(os.getpid())  # weighed against the service's threads
    assert found["process group"] not in (os.getpgid(0), None)  # a Ctrl-C reaches only us
