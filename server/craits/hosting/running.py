"""Bot processes running under a fresh loopback referee, for commands that drive seats themselves.

``run_match`` plays exactly one all-bot game; ``craits check`` (one bot, scripted positions) and
``craits play`` (a person against bots) need the same start-up and clean-up around their own
loops. This is that part, in one place: start a referee, launch each SPEC, watch the processes,
wait for every bot to connect (with a reason when one does not), and always stop them after.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import trio

from craits.exception_groups import sole_exception
from craits.referee.bridge import DEFAULT_HOST
from craits.referee.hub import BotHub
from craits.referee.server import Referee, open_referee

from . import sandbox
from .launcher import BotProcess, LaunchError, launch, stop_all


class NotConnected(Exception):
    """A launched bot never connected; the message says why in one line."""


@dataclass(frozen=True, slots=True)
class Running:
    """A referee and the bot processes launched against it (in SPEC order)."""

    referee: Referee
    bots: tuple[BotProcess, ...]

    @property
    def hub(self) -> BotHub:
        """The referee's hub, where seats for the bots come from."""
        return self.referee.hub


@asynccontextmanager
async def running_bots(
    specs: Sequence[str], names: Sequence[str], log_dir: Path, host: str = DEFAULT_HOST,
    limits: sandbox.SandboxLimits | None = None,
) -> AsyncIterator[Running]:
    """Launch one process per SPEC (not yet waiting for it to connect); stop them all on exit.
    With ``limits``, each runs in the sandbox an adversarial tournament gives it
    (``sandbox_plan``), so a bot's author sees it work there before a contest does.

    ``LaunchError`` from the launcher passes through: the caller decides how to report it.
    """
    try:
        async with open_referee(host, unix_socket=limits is not None) as referee, \
                trio.open_nursery() as nursery:
            bots: list[BotProcess] = []
            try:
                for spec, name in zip(specs, names, strict=True):
                    plan = None if limits is None else sandbox_plan(referee, limits, log_dir,
                                                                    name)
                    bot = await launch(referee.hub, referee.address, spec, name, log_dir,
                                       plan=plan)
                    bots.append(bot)
                    nursery.start_soon(bot.watch, referee.hub)
                yield Running(referee, tuple(bots))
            finally:
                with trio.CancelScope(shield=True):
                    await stop_all(referee.hub, bots)
                nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:  # the watchers never raise: one error, wrapped
        raise sole_exception(group) from None


def sandbox_plan(
    referee: Referee, limits: sandbox.SandboxLimits, log_dir: Path, name: str
) -> sandbox.SandboxPlan:
    """The sandbox of a bot run from the current directory (its own, read-only), as a
    tournament's ``dir`` would give it; ``LaunchError`` when the sandbox cannot be built here."""
    problem = sandbox.missing() or _unreadable(Path.cwd())
    if problem is not None or referee.socket is None:
        raise LaunchError(problem or "the referee has no Unix socket for sandboxed bots")
    return sandbox.plan_for(Path.cwd().resolve(), referee.socket_for(name), limits,
                            (log_dir.resolve(),))


def _unreadable(directory: Path) -> str | None:
    if sandbox.locked_out(directory):
        return (f"the current directory {directory} is not readable by other users, and "
                "sandboxed bots run under user ids of their own: `chmod a+rX` it (and the "
                "bot's files), or run from a directory that is")
    return None


async def connect_all(running: Running, timeout_s: float) -> None:
    """Wait for every bot to connect; ``NotConnected`` names the first that did not, and why."""
    for bot in running.bots:
        if not await running.hub.wait_connected(bot.entry, timeout_s):
            raise NotConnected(why_not_connected(bot, timeout_s))


def why_not_connected(bot: BotProcess, timeout_s: float) -> str:
    """One line: the process's exit status (and its log) or the timeout and what to check."""
    entry = bot.entry
    if entry.dead:
        return f"bot {entry.name!r} never connected: {entry.dead_reason}"
    return (
        f"bot {entry.name!r} did not connect within {timeout_s:g}s (does it dial CRAITS_SERVER "
        f"with the CRAITS_TOKEN it was given? its stderr is in {bot.stderr_path})"
    )
