"""Processes found by a field of ``/proc/PID/stat``, for tests that must see what a run left."""

from __future__ import annotations

import time
from pathlib import Path

STATE, PARENT, SESSION = 0, 1, 3
"""Indexes, counted after the command name, of the state, the parent's pid and the session id."""


def pids_where(field: int, value: int) -> list[int]:
    """The pids whose ``/proc/PID/stat`` has ``value`` at ``field`` (``PARENT``, ``SESSION``)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # ended while we looked
        if int(fields[field]) == value:
            found.append(int(stat.parent.name))
    return found


def wait_dead(pid: int, timeout_s: float = 10.0) -> None:
    """Wait until ``pid`` has exited (a zombie its parent has not reaped counts), without
    reaping it: its parent's own ``wait`` must still see how it ended."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[STATE]
        except (OSError, IndexError):
            return  # already reaped
        if state == "Z":
            return
        time.sleep(0.01)
    raise TimeoutError(f"process {pid} still running after {timeout_s} s")
