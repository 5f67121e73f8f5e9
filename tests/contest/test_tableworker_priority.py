"""A table worker runs below the service's CPU priority (``[ladder] worker_nice``): a real worker
process, read from ``/proc``."""

from __future__ import annotations

import os
import subprocess
import sys
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


def _autogroup_nice(pid: int) -> int | None:
    """Its autogroup's niceness, None without autogroups."""
    try:
        return int(Path(f"/proc/{pid}/autogroup").read_text().split()[-1])
    except OSError:
        return None


def _settled(pid: int, base: int) -> int:
    """The worker's niceness once it has lowered it (it does so at start, before its imports
    finish; the process's own start is not timed here)."""
    deadline = time.monotonic() + 60
    while _nice(pid) == base and time.monotonic() < deadline:
        time.sleep(0.05)
    return _nice(pid)


def test_a_table_worker_runs_at_the_configured_niceness_in_an_autogroup_of_its_own(
        tmp_path: Path) -> None:
    contest = tmp_path / "cup"
    make_contest(contest)
    served = open_contest(contest)
    run = ContestRun(contest, served.config, served.store)
    base = os.getpriority(os.PRIO_PROCESS, 0)
    assert served.config.ladder.worker_nice == 10  # the default
    found: dict[str, int | None] = {}

    async def main() -> None:
        lowered = TableWorker(1, WorkerSetup(contest / "contest.db", run.setting(), 7))
        level = TableWorker(2, WorkerSetup(contest / "contest.db", run.setting(), 0))
        try:
            found["lowered"] = await trio.to_thread.run_sync(_settled, lowered.pid, base)
            found["lowered group"] = _autogroup_nice(lowered.pid)
            found["level"] = _nice(level.pid)
            found["level group"] = _autogroup_nice(level.pid)
        finally:
            await lowered.close()
            await level.close()

    trio.run(main)
    served.store.close()
    assert found["lowered"] == min(19, base + 7)
    assert found["level"] == base  # the control: 0 leaves it as the service's
    if found["level group"] is not None:  # a kernel with autogroups
        assert found["lowered group"] == 7 and found["level group"] == 0


def test_run_below_leaves_a_group_it_does_not_lead_alone(tmp_path: Path) -> None:
    """The autogroup is its session's: a process that does not lead its session (a worker
    started by hand from a shell) lowers only itself, not its starter's group."""
    base = os.getpriority(os.PRIO_PROCESS, 0)
    assert _lowered(tmp_path / "led", new_session=True) == (min(19, base + 3), "3")
    assert _lowered(tmp_path / "not_led", new_session=False) == (
        min(19, base + 3), "/autogroup-1 nice 0\n")


def _lowered(autogroup: Path, *, new_session: bool) -> tuple[int, str]:
    """``run_below(3)`` in a new process, with ``autogroup`` for ``/proc/self/autogroup``: its
    niceness after, and what the file holds."""
    autogroup.write_text("/autogroup-1 nice 0\n")
    script = ("import os; from pathlib import Path; "
              "from craits.contest.tableworker import run_below; "
              f"run_below(3, Path({str(autogroup)!r})); "
              "print(os.getpriority(os.PRIO_PROCESS, 0))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, start_new_session=new_session).stdout
    return int(out), autogroup.read_text()
