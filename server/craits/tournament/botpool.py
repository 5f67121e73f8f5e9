"""The bots of a running tournament: one process (or one remote connection) per bot, shared by
all its tables.

Launched bots (bundled or command) are started once and multiplex every table they sit at over
their one stream. A launched bot that dies is started again, with a new token, for its next game
(its games in progress forfeit under the failure policy), up to ``MAX_RESTARTS`` times in a run;
after that the run stops (``BotCrashError``) and its remaining games wait for a resume, rather
than every one of them being recorded as a forfeit of a bot that is known to be broken. Remote
bots get the token from the configuration (or a fresh one) and are waited for.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Final

import trio

from craits.referee.hub import BotEntry
from craits.referee.launcher import BotProcess, command_for, launch, stop_all
from craits.referee.remote_seat import RemoteSeat
from craits.referee.server import Referee

from .config import BotSpec

LAUNCH_CONNECT_S: Final = 30.0
MAX_RESTARTS: Final = 3


class BotPoolError(Exception):
    """A bot could not be brought into the tournament."""


class BotCrashError(BotPoolError):
    """A launched bot kept dying: it used up its restarts in this run."""


class BotStartError(BotPoolError):
    """A launched bot did not come up: it exited, or never connected. Unlike a remote bot that
    is late, trying again with the same command fails the same way."""


def launch_spec(spec: BotSpec) -> str:
    """What the launcher starts for a launched bot: its command, or a bundled bot's name."""
    return spec.command if spec.kind == "command" else (spec.bundled or spec.name)


def check_launchable(bots: tuple[BotSpec, ...]) -> None:
    """``LaunchError`` for the first launched bot the launcher would refuse to start (a
    misspelt bundled name or program): cheap, and worth doing before anything is stored."""
    for spec in bots:
        if spec.kind != "remote":
            command_for(launch_spec(spec))


class BotPool:
    """Bot name -> the hub entry that currently plays for it."""

    def __init__(
        self, referee: Referee, nursery: trio.Nursery, log_dir: Path,
        say: Callable[[str], None] = lambda line: print(line, file=sys.stderr),
        workdir: Path | None = None,
    ) -> None:
        """``workdir``: where launched bots run (None: the current directory)."""
        self._referee = referee
        self._nursery = nursery
        self._log_dir = log_dir
        self._workdir = workdir
        self._say = say
        self._entries: dict[str, BotEntry] = {}
        self._specs: dict[str, BotSpec] = {}
        self._processes: dict[str, BotProcess] = {}
        self._restarts: dict[str, int] = {}
        self._restarting = trio.Lock()

    async def start(self, bots: tuple[BotSpec, ...], remote_timeout_s: float) -> None:
        """Launch every launched bot and wait for every bot to connect."""
        for spec in bots:
            self._specs[spec.name] = spec
            if spec.kind == "remote":
                entry = self._referee.hub.issue_token(spec.name, spec.token or None)
                self._entries[spec.name] = entry
                self._say(f"remote bot {spec.name}: CRAITS_SERVER={self._referee.address} "
                          f"CRAITS_TOKEN={entry.token}")
            else:
                await self._launch(spec)
        for spec in bots:
            timeout = remote_timeout_s if spec.kind == "remote" else LAUNCH_CONNECT_S
            if not await self._referee.hub.wait_connected(self._entries[spec.name], timeout):
                error = BotPoolError if spec.kind == "remote" else BotStartError
                raise error(self._no_show(spec))

    async def seat(self, name: str) -> RemoteSeat:
        """A seat for bot ``name`` in a new game, restarting its process first if it died.

        One restart at a time: tables that find the same bot dead wait for the one restarting
        it, and then find it alive, rather than each starting a process of its own."""
        if self._entries[name].dead:
            async with self._restarting:
                if self._entries[name].dead:
                    await self._restart(name, self._entries[name])
        return self._referee.hub.seat_for(self._entries[name])

    async def _restart(self, name: str, entry: BotEntry) -> None:
        """Start a dead bot again, unless it has used up its restarts in this run."""
        restarts = self._restarts.get(name, 0)
        if restarts >= MAX_RESTARTS:
            log = self._processes[name].stderr_path
            raise BotCrashError(
                f"bot {name!r} died {restarts + 1} times in this run (last: {entry.dead_reason});"
                f" its remaining games were kept for later: fix it (see {log})"
            )
        self._restarts[name] = restarts + 1
        self._say(f"bot {name} died ({entry.dead_reason}); restarting it")
        entry = await self._launch(self._specs[name])
        await self._referee.hub.wait_connected(entry, LAUNCH_CONNECT_S)

    async def stop(self) -> None:
        """Tell every bot we are done, then stop the processes we started."""
        await stop_all(self._referee.hub, list(self._processes.values()))

    async def _launch(self, spec: BotSpec) -> BotEntry:
        process = await launch(
            self._referee.hub, self._referee.address, launch_spec(spec), spec.name, self._log_dir,
            cwd=self._workdir,
        )
        self._processes[spec.name] = process
        self._entries[spec.name] = process.entry
        self._nursery.start_soon(process.watch, self._referee.hub)
        return process.entry

    def _no_show(self, spec: BotSpec) -> str:
        entry = self._entries[spec.name]
        if entry.dead:
            return (f"bot {spec.name!r} failed to start: it exited before connecting: "
                    f"{entry.dead_reason}")
        if spec.kind == "remote":
            return f"remote bot {spec.name!r} did not connect with its token in time"
        log = self._processes[spec.name].stderr_path
        return f"bot {spec.name!r} failed to start: it never connected to the referee (see {log})"
