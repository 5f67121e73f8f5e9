"""Processes found by a field of ``/proc/PID/stat``, for tests that must see what a run left."""

from __future__ import annotations

from pathlib import Path

PARENT, SESSION = 1, 3
"""Indexes, counted after the command name, of the parent's pid and the session id."""


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
