"""One child program behind the pipe: a JSON line in on stdin, one answer line out on stdout.

The pipe never times a child: the referee's clock is the only clock, so a slow child costs what
any slow bot costs and nothing more. What the pipe does guard against is a child that is gone
(it exited, closed stdout, or never started): ``ask`` then returns ``None`` instead of raising,
and the caller answers for it so that the game goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import shlex
from collections.abc import Mapping, Sequence
from typing import IO, Any, Final

from .lines import encode

LINE_LIMIT: Final = 1 << 20
"""Longest answer line read (1 MiB); a longer one is answered as ``TOO_LONG``."""
TOO_LONG: Final = "(answer line longer than 1 MiB)"
"""Sent to the referee (which refuses it) in place of an over-long answer."""
CLOSE_TIMEOUT_S: Final = 2.0
"""How long a child may take to exit after its stdin is closed, before it is killed."""
CANNOT_RUN: Final = {126: "found but not executable", 127: "command not found"}
"""Exit statuses by which a shell says that a command could not be run at all (``bash
first_legal.sh`` from the wrong directory): every game would fail the same way."""


class ChildGone(Exception):
    """The child could not be started, or it exited."""


class Child:
    """A running child process, spoken to one line at a time."""

    def __init__(self, process: asyncio.subprocess.Process, argv: Sequence[str]) -> None:
        self.process = process
        self.argv = tuple(argv)
        self.answered = False
        """Whether the child has answered at least once (so its command can run)."""

    @classmethod
    async def start(
        cls, argv: Sequence[str], stderr: IO[Any] | None, env: Mapping[str, str]
    ) -> Child:
        """Start ``argv`` with pipes on stdin and stdout; ``ChildGone`` if it cannot start."""
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=stderr,
                env=dict(env),
                limit=LINE_LIMIT,
            )
        except OSError as exc:
            raise ChildGone(f"cannot start {argv[0]!r}: {exc.strerror or exc}") from None
        return cls(process, argv)

    async def ask(self, line: dict[str, Any]) -> str | None:
        """Send one line and read one answer line; ``None`` if the child is gone."""
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        try:
            stdin.write(encode(line))
            await stdin.drain()
            raw = await stdout.readline()
        except (BrokenPipeError, ConnectionResetError):
            return None
        except ValueError:  # longer than LINE_LIMIT: asyncio dropped it; the referee refuses this
            return TOO_LONG
        if not raw:
            return None
        self.answered = True
        return raw.decode(errors="replace").rstrip("\r\n")

    @property
    def cannot_run(self) -> bool:
        """Whether the child's command cannot run here: it exited with such a status before
        answering anything. A child that answered, then exited 127 (a helper it runs is
        missing), failed in this game only; the pipe's other games go on."""
        return not self.answered and self.process.returncode in CANNOT_RUN

    async def gone_reason(self, wait_s: float = 0.5) -> str:
        """Why the child no longer answers (its exit status, if it exits within ``wait_s``),
        naming the whole command: ``bash`` alone would not say which script is wrong."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.process.wait(), wait_s)
        status = self.process.returncode
        command = shlex.join(self.argv)
        if status is None:
            return f"pipe bot {command!r} closed its stdout"
        meaning = f" ({CANNOT_RUN[status]})" if status in CANNOT_RUN else ""
        return f"pipe bot {command!r} exited with status {status}{meaning}"

    async def close(self, timeout_s: float = CLOSE_TIMEOUT_S) -> int:
        """End of the game: close stdin (EOF), wait for the exit, kill if it takes too long."""
        stdin = self.process.stdin
        if stdin is not None:
            stdin.close()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                await stdin.wait_closed()
        try:
            return await asyncio.wait_for(self.process.wait(), timeout_s)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            return await self.process.wait()


def child_env(base: Mapping[str, str], game_id: str, seat: int) -> dict[str, str]:
    """The child's environment: the pipe's, without its token, plus the game and seat."""
    env = {k: v for k, v in base.items() if k != "CRAITS_TOKEN"}
    env.update(CRAITS_GAME_ID=game_id, CRAITS_SEAT=str(seat))
    return env
