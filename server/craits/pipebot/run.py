"""The whole pipe process: where children's stderr goes, and a clean stop on SIGTERM.

The stream itself is the SDK's connection loop (``craits_sdk.client.serve_session``) driving a
``PipeSession``: a pipe bot and a Python bot dial, re-dial and exit alike under a referee, except
that a stream the referee ends cleanly ends the pipe (status 0) rather than being re-dialled.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Coroutine, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from craits_sdk import EXIT_FAILURE, Options
from craits_sdk.client import serve_session

from .game import LOG, ChildSpec
from .session import PipeSession

EXIT_TERMINATED: Final = 128 + signal.SIGTERM
"""The status after SIGTERM, once every child has been closed."""


async def run_pipe(
    argv: Sequence[str],
    options: Options,
    stderr: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    """Play as a pipe bot until the referee ends the stream; return the exit status.

    ``stderr``: a file the children's stderr is appended to (default: this process's stderr).
    SIGTERM ends the run cleanly: children get EOF (and are killed if they linger), so stopping
    the pipe leaves no orphans behind.
    """
    with contextlib.ExitStack() as stack:
        err_file = stack.enter_context(stderr.open("ab")) if stderr is not None else None
        spec = ChildSpec(tuple(argv), err_file, dict(os.environ if env is None else env))
        session = PipeSession(spec)
        try:
            status = await _until_sigterm(_serve_until_stopped(session, options))
        finally:
            await session.close()
    if session.stopped.done():  # last, so that a referee's log of this bot ends with it
        LOG.error("%s; stopping: no game can be played", session.stopped.result())
    return status


async def _serve_until_stopped(session: PipeSession, options: Options) -> int:
    """The SDK's connection loop, cut short (``EXIT_FAILURE``) once a game finds that the
    command cannot run: every other game would fail the same way, so the pipe ends at once and
    its seats forfeit as a crashed bot's."""
    serving = asyncio.ensure_future(
        serve_session(session, options, log=LOG, exit_at_end_of_stream=True)
    )
    either: list[asyncio.Future[Any]] = [serving, session.stopped]
    try:
        await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not serving.done():
            serving.cancel()
            await asyncio.gather(serving, return_exceptions=True)
    return EXIT_FAILURE if session.stopped.done() else serving.result()


async def _until_sigterm(work: Coroutine[Any, Any, int]) -> int:
    """Run ``work``; a SIGTERM cancels it and gives ``EXIT_TERMINATED``."""
    task = asyncio.ensure_future(work)
    terminated = False

    def on_sigterm() -> None:
        nonlocal terminated
        terminated = True
        task.cancel()

    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGTERM, on_sigterm)
    except (NotImplementedError, RuntimeError):  # not the main thread, or no signals here
        return await task
    try:
        return await task
    except asyncio.CancelledError:
        if terminated:
            return EXIT_TERMINATED
        raise
    finally:
        loop.remove_signal_handler(signal.SIGTERM)
