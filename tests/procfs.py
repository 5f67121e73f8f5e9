"""Processes found by a field of ``/proc/PID/stat``, for tests that must see what a run left."""

from __future__ import annotations

import time
from pathlib import Path

STATE, PARENT, SESSION, NICE = 0, 1, 3, 16
"""Indexes, counted after the command name, of the state, the parent's pid, the session id and
the niceness."""


def stat_of(pid: int) -> list[str]:
    """The fields of ``/proc/PID/stat`` after the command name; ``OSError`` (or ``IndexError``
    for a process being reaped) when it has ended."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def pids_where(field: int, value: int) -> list[int]:
    """The pids whose ``/proc/PID/stat`` has ``value`` at ``field`` (``PARENT``, ``SESSION``)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat_of(int(stat.parent.name))
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
            state = stat_of(pid)[STATE]
        except (OSError, IndexError):
            return  # already reaped
        if state == "Z":
            return
        time.sleep(0.01)
    raise TimeoutError(f"process {pid} still running after {timeout_s} s")
