"""The bots of a running tournament: one process (or one remote connection) per bot, shared by
all its tables.

Launched bots (bundled or command) are started once and multiplex every table they sit at over
their one stream. An *isolated* bot (a command bot in an adversarial tournament) runs in a
sandbox, and at duplicate deals as one process per seating (its *slot*): slot r plays seating r
of every deal set, so no process ever sees two seatings of one deal, and the sandboxes share
nothing through which the slots could talk. Slots beyond the first start on first use. A launched
bot that dies is started again, with a new token, for its next game (its games in progress
forfeit under the failure policy), until it has died more than ``MAX_RESTARTS`` times in a run
(its slots together); then the run stops (``BotCrashError``) and its remaining games wait for a
resume, rather than every one of them being recorded as a forfeit of a bot known to be broken.
Remote bots get the token from the configuration (or a fresh one) and are waited for. A
``python`` bot is no process at all: one instance of its class in this process plays all of its
tables here (``inprocess``), and a pool of only such bots needs no referee.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import trio

from craits.hosting import botgroup, sandbox
from craits.hosting.launcher import BotProcess, LaunchError, command_for, launch, stop_all
from craits.referee.hub import BotEntry
from craits.referee.seats import Seat
from craits.referee.server import Referee
from craits.tournament.plan.config import BotKind, BotSpec, TournamentConfig
from craits_sdk import Bot

from .inprocess import BotLoadError, BotSeat, load_bot

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
    return spec.command if spec.kind == BotKind.COMMAND else (spec.bundled or spec.name)


def check_launchable(bots: tuple[BotSpec, ...], workdir: Path | None = None) -> None:
    """``LaunchError`` for the first launched bot the launcher would refuse to start (a
    misspelt bundled name or program), or in-process bot that cannot be made (a module that is
    not there, a class that is no ``Bot``): cheap, and worth doing before anything is stored."""
    for spec in bots:
        if spec.kind == BotKind.PYTHON:
            _load(spec, workdir or Path.cwd(), LaunchError)
        elif spec.kind != BotKind.REMOTE:
            command_for(launch_spec(spec))


def _load(spec: BotSpec, search: Path, error: type[Exception]) -> Bot:
    """An instance of an in-process bot, or ``error`` saying which bot failed and why."""
    try:
        return load_bot(spec.python, search)
    except BotLoadError as exc:
        raise error(f"bot {spec.name!r}: {exc}") from None


def isolation_problem(config: TournamentConfig, workdir: Path | None) -> str | None:
    """Why the tournament's isolated bots cannot run sandboxed here (what to install, which
    directory is missing), or None when they can."""
    isolated = [b for b in config.bots if config.isolated(b.name)]
    if not isolated:
        return None
    missing = sandbox.missing()
    if missing is not None:
        return missing
    home = workdir or Path.cwd()
    for spec in isolated:
        if not spec.directory:
            continue  # it gets an empty directory of its own (``BotPool._plan``)
        where = home / spec.directory
        if not where.is_dir():
            return (f"bot {spec.name!r}: its directory {where} does not exist "
                    "(dir = ... in its [[bots]] entry is relative to the tournament's directory)")
        if sandbox.locked_out(where):
            return (f"bot {spec.name!r}: its directory {where} is not readable by other users, "
                    "and sandboxed bots run under user ids of their own: `chmod a+rX` it (and "
                    "its files), or give the bot a directory of its own (dir = ...)")
    return None


def isolation_notes(config: TournamentConfig) -> list[str]:
    """What the organiser should know about how the isolated bots are held here: empty, or why
    their process trees cannot be held to one share of CPU and memory on this machine."""
    if not any(config.isolated(b.name) for b in config.bots):
        return []
    problem = botgroup.problem()
    return [] if problem is None else [problem]


@dataclass(frozen=True, slots=True)
class Isolation:
    """How the pool sandboxes isolated bots: which bots, and what their sandboxes hide."""

    isolated: Callable[[str], bool]
    """Whether bot ``name`` runs sandboxed."""
    hidden: tuple[Path, ...] = ()
    """The store and the logs: masked wherever a sandbox's mounts would show them."""


Slot = tuple[str, int]
"""(bot name, slot): one process of a bot."""


class BotPool:
    """(bot name, slot) -> the hub entry that currently plays for it."""

    def __init__(
        self, referee: Referee | None, nursery: trio.Nursery, log_dir: Path,
        say: Callable[[str], None] = lambda line: print(line, file=sys.stderr),
        workdir: Path | None = None, isolation: Isolation | None = None, log_tag: str = "",
        account_owner: int | None = None,
    ) -> None:
        """``referee``: None when every bot plays in process; ``workdir``: where launched bots
        run (None: the current directory); ``isolation``: None when no bot is sandboxed (the
        referee then needs no socket); ``log_tag``: added to the bots' log names (a worker
        process's number, so that workers never write one file); ``account_owner``: the process
        whose id names each sandboxed bot's control group on this machine (the
        ``botgroup.Account`` every process of the bot shares, in every worker); None: this
        one."""
        self._account_owner = os.getpid() if account_owner is None else account_owner
        self._empty: Path | None = None
        self._maybe_referee = referee
        self._log_tag = log_tag
        self._nursery = nursery
        self._log_dir = log_dir
        self._workdir = workdir
        self._isolation = isolation
        self._say = say
        self._entries: dict[Slot, BotEntry] = {}
        self._bots: dict[str, Bot] = {}
        self._specs: dict[str, BotSpec] = {}
        self._processes: dict[Slot, BotProcess] = {}
        self._deaths: Counter[str] = Counter()
        self._restarting = trio.Lock()

    async def start(self, bots: tuple[BotSpec, ...], remote_timeout_s: float) -> None:
        """Launch every launched bot (its first slot), make every in-process one, and wait for
        every bot with a process to connect."""
        advise: str | None = None  # said once, after the remote bots' lines
        for spec in bots:
            self._specs[spec.name] = spec
            if spec.kind == BotKind.PYTHON:
                self._bots[spec.name] = _load(spec, self._workdir or Path.cwd(), BotStartError)
            elif spec.kind == BotKind.REMOTE:
                entry = self._referee.hub.issue_token(spec.name, spec.token or None)
                self._entries[spec.name, 0] = entry
                token = entry.token or "(the token given in the tournament file)"
                self._say(f"remote bot {spec.name}: {self._referee.bot_settings(token)}")
                advise = advise or self._referee.tls_advice()
            else:
                await self._launch((spec.name, 0))
        if advise is not None:
            self._say(advise)
        for spec in bots:
            if spec.kind == BotKind.PYTHON:
                continue
            timeout = remote_timeout_s if spec.kind == BotKind.REMOTE else LAUNCH_CONNECT_S
            if not await self._referee.hub.wait_connected(self._entries[spec.name, 0], timeout):
                error = BotPoolError if spec.kind == BotKind.REMOTE else BotStartError
                raise error(self._no_show(spec))

    @property
    def _referee(self) -> Referee:
        """The referee the bots with processes connect to (only they ever ask for it)."""
        if self._maybe_referee is None:
            raise BotPoolError("bots with processes need a referee, and this pool has none")
        return self._maybe_referee

    async def seat(self, name: str, slot: int = 0) -> Seat:
        """A seat for bot ``name`` (its process ``slot``) in a new game, starting that process
        first if it is not running yet, or restarting it if it died; for an in-process bot, a
        seat played by its one instance here.

        One start at a time: tables that find the same bot dead wait for the one restarting
        it, and then find it alive, rather than each starting a process of its own."""
        bot = self._bots.get(name)
        if bot is not None:
            return BotSeat(name, bot)
        key = (name, slot)
        if key not in self._entries or self._entries[key].dead:
            async with self._restarting:
                if key not in self._entries:
                    await self._start_slot(key)
                elif self._entries[key].dead:
                    await self._restart(key, self._entries[key])
        return self._referee.hub.seat_for(self._entries[key])

    async def _start_slot(self, key: Slot) -> None:
        entry = await self._launch(key)
        if not await self._referee.hub.wait_connected(entry, LAUNCH_CONNECT_S):
            raise BotStartError(self._no_show(self._specs[key[0]], key[1]))

    async def _restart(self, key: Slot, entry: BotEntry) -> None:
        """Start a dead bot again, unless it has died too often in this run (all its slots
        together: a bot is broken or not, whichever process shows it)."""
        name = key[0]
        if self._deaths[name] > MAX_RESTARTS:
            log = self._processes[key].stderr_path
            raise BotCrashError(
                f"bot {name!r} died {self._deaths[name]} times in this run (last: "
                f"{entry.dead_reason}); its remaining games were kept for later: fix it "
                f"(see {log})"
            )
        self._say(f"bot {name} died ({entry.dead_reason}); restarting it")
        entry = await self._launch(key)
        await self._referee.hub.wait_connected(entry, LAUNCH_CONNECT_S)

    async def stop(self) -> None:
        """Tell every bot we are done, then stop the processes we started."""
        try:
            if self._maybe_referee is not None:
                await stop_all(self._referee.hub, list(self._processes.values()))
        finally:
            if self._empty is not None:
                shutil.rmtree(self._empty, ignore_errors=True)

    async def end_isolated(self) -> None:
        """End every process of every sandboxed bot (their sandboxes' ``/tmp`` goes with
        them); each starts afresh at its next seat. Called between the seatings of a
        seating-major run (``schedule.seating_major``), when none of them is playing: a process
        of the next seating then never runs beside one that saw an earlier seating of its deal,
        so no channel between them (a counter, CPU timing) can carry a hand."""
        ending = [key for key, process in self._processes.items() if process.sandboxed]
        async with trio.open_nursery() as nursery:
            for key in ending:
                process = self._processes.pop(key)
                del self._entries[key]
                nursery.start_soon(process.stop)

    async def _launch(self, key: Slot) -> BotEntry:
        name, slot = key
        spec = self._specs[name]
        process = await launch(
            self._referee.hub, self._referee.local_address, launch_spec(spec), name, self._log_dir,
            cwd=self._bot_dir(spec), plan=self._plan(spec),
            log_name=".".join([name, *([str(slot)] if slot else []),
                               *([self._log_tag] if self._log_tag else [])]),
            account=botgroup.Account(self._account_owner, name),
        )
        self._processes[key] = process
        self._entries[key] = process.entry
        self._nursery.start_soon(self._watch, name, process)
        return process.entry

    async def _watch(self, name: str, process: BotProcess) -> None:
        """Count a death of the bot as it happens (not when a table next wants the bot)."""
        await process.watch(self._referee.hub)
        if not process.stopping:
            self._deaths[name] += 1

    def _plan(self, spec: BotSpec) -> sandbox.SandboxPlan | None:
        """The sandbox of an isolated bot's next process, or None to run it as it is."""
        if self._isolation is None or not self._isolation.isolated(spec.name):
            return None
        if self._referee.socket is None:
            raise BotPoolError("sandboxed bots need a referee listening on a Unix socket")
        where = self._bot_dir(spec) if spec.directory else self._empty_dir()
        return sandbox.plan_for((where or Path.cwd()).resolve(),
                                self._referee.socket_for(spec.name), spec.limits,
                                self._isolation.hidden)

    def _empty_dir(self) -> Path:
        """The directory of a sandboxed bot given no ``dir``: an empty one, not the
        tournament's, which holds the tournament file (a remote bot's token was in it), other
        contestants' code and often the store."""
        if self._empty is None:
            self._empty = Path(tempfile.mkdtemp(prefix="craits-bot-"))
            self._empty.chmod(0o755)  # bots run under user ids of their own
        return self._empty

    def _bot_dir(self, spec: BotSpec) -> Path | None:
        """Where a launched bot runs: its own directory, relative to the tournament's."""
        if not spec.directory:
            return self._workdir
        return (self._workdir or Path.cwd()) / spec.directory

    def _no_show(self, spec: BotSpec, slot: int = 0) -> str:
        entry = self._entries[spec.name, slot]
        if entry.dead:
            return (f"bot {spec.name!r} failed to start: it exited before connecting: "
                    f"{entry.dead_reason}")
        if spec.kind == BotKind.REMOTE:
            return f"remote bot {spec.name!r} did not connect with its token in time"
        log = self._processes[spec.name, slot].stderr_path
        return f"bot {spec.name!r} failed to start: it never connected to the referee (see {log})"
