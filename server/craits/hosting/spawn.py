"""Child processes forked by the thread that owns them, and awaited without a thread.

Why not ``trio.lowlevel.open_process``: it forks from one of trio's worker threads, and on
Linux a child's parent-death signal (``prctl(PR_SET_PDEATHSIG)``, which ``bwrap
--die-with-parent`` sets so that a sandbox ends with its referee) fires when the *thread* that
forked it exits, not the process. trio retires a worker thread after 10 s idle, so every
sandboxed bot was SIGKILLed about 10 s after its start by nothing but that retirement (a bot
forfeited mid-contest for nothing). Here the fork happens in the thread running the event loop,
which lives as long as everything that watches the child (a bot process is stopped before its
referee's loop ends), and the exit is awaited through a pidfd that the loop itself polls.

The fork blocks the loop for the time ``subprocess.Popen`` takes to fork and exec (it uses
``vfork`` on Linux; a few milliseconds, paid once per bot process), which is the price of a
parent-death signal with the right lifetime.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

import trio


class ChildProcess:
    """A started child: its pid, its exit status once it has one, and an awaitable exit."""

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self._popen = popen
        self._pidfd: int | None = os.pidfd_open(popen.pid)
        self._wait_lock = trio.Lock()

    @property
    def pid(self) -> int:
        """The child's process id (also its process group's, when started in a new session)."""
        return self._popen.pid

    @property
    def returncode(self) -> int | None:
        """The exit status (negative: the signal that ended it), or None while it runs."""
        status = self._popen.poll()
        if status is not None:
            self._close_pidfd()
        return status

    async def wait(self) -> int:
        """Wait for the child to exit, reap it, and return its exit status. Several tasks may
        wait at once (a watcher and a stopper): they take turns on the pidfd."""
        async with self._wait_lock:
            if self.returncode is None and self._pidfd is not None:
                # ClosedResourceError: ``returncode`` saw it end meanwhile and closed the pidfd
                with contextlib.suppress(trio.ClosedResourceError):
                    await trio.lowlevel.wait_readable(self._pidfd)
            status = self._popen.wait()  # it has exited: this reaps it without blocking
            self._close_pidfd()
            return status

    def _close_pidfd(self) -> None:
        if self._pidfd is not None:
            trio.lowlevel.notify_closing(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None


def start(
    argv: Sequence[str], *, env: Mapping[str, str], cwd: Path | None = None,
    stdout: int | IO[bytes] | None = None, stderr: int | IO[bytes] | None = None,
    pass_fds: tuple[int, ...] = (), own_session: bool = True,
) -> ChildProcess:
    """Start ``argv`` in a session of its own (so its whole group can be signalled), with
    standard input from /dev/null, from the calling thread: call it from the event loop's
    thread, whose life bounds the child's (see the module's docstring). ``OSError`` when it
    cannot be started. ``pass_fds``: descriptors the child keeps, at their own numbers.
    ``own_session`` False: a process group of its own in the caller's session instead, for a
    child that lowers its own priority (``nice``) to yield to the caller: with the kernel's
    autogroups, a niceness weighs only against the processes of its session."""
    popen = subprocess.Popen(
        list(argv), env=dict(env), cwd=cwd, stdin=subprocess.DEVNULL, stdout=stdout,
        stderr=stderr, start_new_session=own_session, process_group=None if own_session else 0,
        pass_fds=pass_fds,
    )
    return ChildProcess(popen)
