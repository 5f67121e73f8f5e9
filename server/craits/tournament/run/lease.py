"""One runner per tournament: an exclusive lock held for the whole run.

Two runs of one tournament (two ``resume``s, or a ``resume`` while the first run still plays)
would each return the other's claimed jobs to pending and play them twice over. So the runner
holds an exclusive ``flock`` on ``runner.lock`` in the tournament's log directory (which every
run of it shares: it is derived from the database's path) for as long as it runs. The kernel
releases the lock when the process ends, however it ends (``kill -9`` included), so a dead
runner never blocks a resume, and no stale pid can be mistaken for a live runner. The file holds
the holder's pid, for the message.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from craits import private

LOCK_FILE: Final = "runner.lock"


class LeaseError(Exception):
    """Another live process is running the tournament."""


@contextmanager
def lease(log_dir: Path, tournament_id: str) -> Iterator[None]:
    """Hold the tournament's lock while the body runs; ``LeaseError`` if another process does."""
    private.make_dirs(log_dir)
    fd = os.open(log_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, private.FILE_MODE)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise LeaseError(f"tournament {tournament_id} is being run by another process"
                             f"{_holder(fd)}; wait for it to end, or stop it") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        os.close(fd)  # releases the lock


def _holder(fd: int) -> str:
    """`` (pid N)`` as the holder wrote it ("" if it has not yet)."""
    text = os.pread(fd, 32, 0).decode(errors="replace").strip()
    return f" (pid {text})" if text.isdigit() else ""
