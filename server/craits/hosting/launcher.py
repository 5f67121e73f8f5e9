"""Bot processes: turning a bot SPEC into a running OS process that dials the referee.

A SPEC is the name of a bundled bot (``random``, ``greedy``, ...) or any shell command. The
process finds the referee in ``CRAITS_SERVER`` (host:port, or ``unix:PATH`` inside a sandbox) and
its identity in ``CRAITS_TOKEN``; its stdout and stderr go to a log file, so a crashing bot can be
diagnosed (for a sandboxed bot through a pipe, copied up to a limit: flooding them fills
nothing). Given a ``SandboxPlan`` the process runs inside it (``sandbox``) with only an
allow-listed environment; otherwise it inherits the organiser's. When a process exits while the
referee still needs it, the hub is told at once, so its seats forfeit instead of waiting out the
reconnect grace period.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import trio

from craits import private
from craits.referee.hub import BotEntry, BotHub
from craits.suggest import did_you_mean

from . import botlog, sandbox, spawn
from .botgroup import JOIN_FAILED, Account, BotGroup, GroupLimits


def bundled_bots() -> dict[str, str]:
    """Bundled bot names -> ``module:Class`` targets (from the ``craits_bots`` package)."""
    try:
        from craits_bots.registry import BUNDLED  # the bots package is optional for the referee
    except ImportError:
        return {}
    return dict(BUNDLED)


def command_for(spec: str) -> list[str]:
    """The argv that starts the bot a SPEC names; ``LaunchError`` for a one-word SPEC that is
    neither a bundled bot nor a program on ``PATH`` (most likely a misspelt bot name)."""
    bundled = bundled_bots()
    if spec in bundled:
        # Imported here: the bots package is optional, and ``spec in bundled`` means it is there.
        from craits_bots.registry import launch_command

        return launch_command(spec)
    words = spec.split()
    if len(words) == 1 and shutil.which(words[0], path=_bot_path()) is None:
        known = ", ".join(bundled) or "none installed"
        raise LaunchError(f"unknown bot {spec!r}{did_you_mean(spec, bundled)}: not a bundled "
                          f"bot ({known}) nor a program on PATH")
    return ["/bin/sh", "-c", spec]


def _bot_path() -> str:
    """The PATH a launched bot gets: this interpreter's directory first."""
    return os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])


def display_name(spec: str) -> str:
    """A short name for a SPEC: the bundled name, else what the command runs.

    ``python3 -u my_bot.py --fast`` is ``my_bot``, ``python -m pkg.bot`` is ``bot``, a pipe bot
    is named after the program it wraps, and a command with no script (``python -c "..."``) after
    its program (``python``): never an option such as ``-c``.
    """
    if spec in bundled_bots():
        return spec
    words = _words(spec)
    if words[:2] == ["craits", "pipe"] and "--" in words:
        words = words[words.index("--") + 1:]  # name a pipe bot after the program it wraps
    program = next((w for w in words if not _is_setting(w)), "")
    if Path(program).name.rstrip("0123456789.") in _INTERPRETERS:
        return _script_name(words[words.index(program) + 1:]) or Path(program).name
    return Path(program).stem or "bot"


def _words(spec: str) -> list[str]:
    """The SPEC's words as the shell would split them (quotes kept together when they match)."""
    try:
        return shlex.split(spec)
    except ValueError:
        return spec.split()


def _is_setting(word: str) -> bool:
    """``VAR=value`` before a command (or after ``env``)."""
    name, sep, _ = word.partition("=")
    return bool(sep) and name.isidentifier()


def _script_name(args: list[str]) -> str:
    """What an interpreter runs: the module of ``-m``, else its first plain argument; an
    option or a setting is never a name, and ``-c`` (code on the command line) has none."""
    for i, word in enumerate(args):
        if word == "-m" and i + 1 < len(args):
            return args[i + 1].rpartition(".")[2]
        if word == "-c":
            return ""
        if word.startswith("-") or _is_setting(word):
            continue
        if Path(word).name.rstrip("0123456789.") in _INTERPRETERS:
            return _script_name(args[i + 1:])  # env python bot.py
        return Path(word).stem
    return ""


CANNOT_RUN: Final = {126: "found but not executable", 127: "command not found"}
"""What a shell's exit status says about a command it could not run."""


def exit_reason(status: int) -> str:
    """Why a bot process ended, from its exit status alone: the status, or the signal that
    killed it. Not its last stderr line, which is whatever it logged last (often "connected")
    and reads as if that had killed it; the log's path goes with the reason instead."""
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = str(-status)
        return f"bot process was killed by signal {name}"
    meaning = f" ({CANNOT_RUN[status]})" if status in CANNOT_RUN else ""
    return f"bot process exited with status {status}{meaning}"


ERROR_LEVELS: Final = (": ERROR: ", ": CRITICAL: ")
"""How the SDK and ``craits pipe`` mark a log line that says why they stop."""


def last_error(stderr_path: Path) -> str:
    """``: <line>`` when the bot's last stderr line is an error it logged on its way out (the
    SDK's or the pipe's ``ERROR`` line, the one that says why), else ``""``: whatever else it
    wrote last (``INFO: connected``) says nothing about why it ended."""
    try:
        lines = stderr_path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    last = lines[-1] if lines else ""
    return f": {last[:300]}" if any(level in last for level in ERROR_LEVELS) else ""


@dataclass(eq=False, slots=True)
class BotProcess:
    """A launched bot and the hub entry it authenticates as."""

    entry: BotEntry
    process: spawn.ChildProcess
    stderr_path: Path
    output: int | None = None
    """For a sandboxed bot: the read end of the pipe its stdout and stderr go to, which
    ``copy_output`` copies into the log. Other bots write to the log file directly."""
    output_limit: int = sandbox.SandboxLimits().stderr_mb << 20
    """How much of this process's output its log keeps."""
    budget: LogBudget | None = None
    """What all the bot's logs of this tournament may still take (a sandboxed bot's)."""
    group: BotGroup | None = None
    """For a sandboxed bot where control groups are usable: the groups holding its tree."""
    cpu_limit_s: float = float(sandbox.SandboxLimits().cpu_s)
    """CPU seconds its whole tree may spend (``group`` counts them)."""
    over_limit: str | None = None
    """Why the referee ended it, when it did (its tree spent more than ``cpu_limit_s``)."""
    sandboxed: bool = False
    """Started in a sandbox (an isolated bot)."""
    group_closing: bool = False
    group_gone: trio.Event = field(default_factory=trio.Event)
    stopping: bool = False
    drained: trio.Event = field(default_factory=trio.Event)
    """Set when ``copy_output`` has read the pipe to its end (every writer is gone)."""

    async def copy_output(self) -> None:
        """Copy what the bot writes into its log, up to ``output_limit`` bytes of this process's
        output and while the bot's logs of this tournament hold less than its ``budget``; read
        and drop the rest, so that a bot flooding its output neither blocks nor fills the disk,
        however often it crashes and is restarted or its tournament resumed."""
        if self.output is None:
            self.drained.set()
            return
        kept = 0
        text = botlog.BotText()  # no forged referee line, no raw control byte (``botlog``)
        budget = self.budget or LogBudget.unlimited()
        try:
            with os.fdopen(private.open_append(self.stderr_path), "ab") as log:
                capped = budget.left() <= 0
                if capped and log.tell() == 0:  # a new file: say why it holds nothing
                    log.write(budget.line())
                async with trio.lowlevel.FdStream(self.output) as stream:
                    while chunk := await stream.receive_some(1 << 16):
                        if kept < self.output_limit and not capped:
                            data = budget.fit(text.feed(chunk[: self.output_limit - kept]))
                            log.write(data)
                            log.flush()
                            kept += len(chunk)
                            budget.spent(len(data))
                            if budget.left() <= 0:
                                capped = True
                                log.write(b"\n" + budget.line())
                            elif kept >= self.output_limit:
                                log.write(text.flush())
                                log.write(b"\n[craits: output limit reached; the rest dropped]\n")
                                text.at_line_start = True
                if capped:  # the bot's logs are full: not even the referee's closing line
                    return
                log.write(text.flush())
                if self.group is not None:  # every writer is gone: the tree has ended
                    used = self.group.cpu_s()
                    log.write(("" if text.at_line_start else "\n").encode()
                              + f"[craits: the bot's processes used {used:.2f} CPU seconds]\n"
                              .encode())
        finally:
            self.drained.set()

    async def watch(self, hub: BotHub) -> None:
        """Copy the bot's output while waiting for the process to exit; tell the hub at once
        unless we stopped it ourselves.

        A sandbox's processes all end with it, so its pipe ends a moment after the process:
        that moment is waited for (briefly), so the log holds the bot's last words."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self.copy_output)
            async with trio.open_nursery() as policing:
                if self.group is not None:
                    policing.start_soon(self._police_cpu, self.group)
                status = await self.process.wait()
                policing.cancel_scope.cancel()
            with trio.move_on_after(DRAIN_S):
                await self.drained.wait()
        if self.group is not None:
            await self._close_group(self.group)
        if not self.stopping:
            said = self.over_limit or last_error(self.stderr_path)
            reason = f"{self._exit_reason(status)}{said} (its stderr is in {self.stderr_path})"
            hub.mark_dead(self.entry, reason)

    def _exit_reason(self, status: int) -> str:
        if self.group is not None and status == JOIN_FAILED and self.over_limit is None:
            return f"{exit_reason(status)} (it could not join its control groups)"
        return exit_reason(status)

    async def _police_cpu(self, group: BotGroup) -> None:
        """End the bot when its tree has spent its CPU seconds (each process's RLIMIT_CPU
        alone would let a bot that forks spend them many times over)."""
        while True:
            await trio.sleep(CPU_POLL_S)
            used = group.cpu_s()
            if used > self.cpu_limit_s:
                self.over_limit = (f": its processes used {used:.0f} CPU seconds, over its "
                                   f"limit (cpu_s = {self.cpu_limit_s:.0f})")
                self._signal_group(signal.SIGKILL)
                return

    async def _close_group(self, group: BotGroup) -> None:
        """Remove the tree's groups once its last process has been reaped (a moment after the
        sandbox's init ends). Once: whichever of ``watch`` and ``stop`` sees the process end
        first does it, shielded (a run that ends cancels ``watch`` right after ``stop``), and
        the other waits for it."""
        if self.group_closing:
            await self.group_gone.wait()
            return
        self.group_closing = True
        with trio.CancelScope(shield=True):
            await self._remove_group(group)
        self.group_gone.set()

    async def _remove_group(self, group: BotGroup) -> None:
        with trio.move_on_after(DRAIN_S):  # copy_output reads the tree's CPU time at the end
            await self.drained.wait()
        for _ in range(GROUP_REMOVE_TRIES):
            group.kill()
            if group.remove():
                return
            await trio.sleep(0.05)

    async def stop(self, timeout_s: float = 2.0) -> None:
        """Terminate the bot's whole process group politely, then kill it.

        The group, not just the process: a SPEC runs under ``/bin/sh -c``, which may keep the
        real bot (node, a pipe wrapper and its child) as a child rather than exec it.
        """
        self.stopping = True
        self._signal_group(signal.SIGTERM)
        if self.process.returncode is None:
            with trio.move_on_after(timeout_s):
                await self.process.wait()
        self._signal_group(signal.SIGKILL)
        await self.process.wait()
        if self.group is not None:
            with trio.CancelScope(shield=True):
                await self._close_group(self.group)

    def _signal_group(self, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)  # the group was made by start_new_session


@dataclass(eq=False, slots=True)
class LogBudget:
    """What one sandboxed bot's logs of one tournament may hold in all.

    ``stderr_mb`` bounds one process's output, but a crash-looping bot is started again and
    again (a few times per run, every slot, every worker), and every resume starts it anew: each
    start could add ``stderr_mb`` to what the organiser stores. So the bound is the bot's, not
    the process's: before copying more, the bytes already in the bot's log files in the
    tournament's log directory are counted (``<bot>[.<slot>][.w<worker>].stderr.log``, whoever
    wrote them, in this run or an earlier one), and once they reach ``limit`` the referee says
    so (``line``) and drops the rest. The files are counted again after every ``RESCAN_BYTES``
    this process writes, so that processes of the bot writing at once (slots, workers) each
    overshoot by at most that much; between, its own writes are added up here."""

    directory: Path | None
    """The tournament's log directory (None: no bound)."""
    stem: str
    """The bot's log name (``_safe(name)``)."""
    limit: int
    """Bytes, ``log_mb`` MiB."""
    _used: int = 0
    _since_scan: int | None = None
    """Bytes written since the files were last counted; None before they ever were."""

    @classmethod
    def unlimited(cls) -> LogBudget:
        return cls(None, "", 1 << 62)

    def left(self) -> int:
        """Bytes the bot's logs may still take."""
        if self._since_scan is None or self._since_scan >= RESCAN_BYTES:
            self._used, self._since_scan = self._count(), 0
        return self.limit - self._used

    def fit(self, data: bytes) -> bytes:
        """As much of ``data`` (the log's UTF-8 text) as the budget takes, cut at a character."""
        room = self.left()
        if len(data) <= room:
            return data
        return data[: max(room, 0)].decode(errors="ignore").encode()

    def spent(self, size: int) -> None:
        """``size`` bytes were written into one of the bot's logs."""
        self._used += size
        self._since_scan = (self._since_scan or 0) + size

    def line(self) -> bytes:
        """The referee's line where the bot's logs reach their limit."""
        return (f"[craits: this bot's logs of this tournament reached their limit (log_mb = "
                f"{self.limit >> 20}); the rest of its output, in every process, restart and "
                f"resume, is dropped]\n").encode()

    def _count(self) -> int:
        if self.directory is None:
            return 0
        name = re.compile(re.escape(self.stem) + r"(?:\.\d+)?(?:\.w\d+)?\.stderr\.log")
        total = 0
        with contextlib.suppress(FileNotFoundError), os.scandir(self.directory) as entries:
            for entry in entries:
                if name.fullmatch(entry.name):
                    with contextlib.suppress(FileNotFoundError):
                        total += entry.stat(follow_symlinks=False).st_size
        return total


RESCAN_BYTES = 1 << 16
"""How much one process writes into the bot's log between two counts of its log files."""

DRAIN_S = 0.2
"""How long a sandboxed bot's output may take to arrive after its process ended."""

CPU_POLL_S = 1.0
"""How often a sandboxed bot's tree's CPU time is compared with its limit."""

GROUP_REMOVE_TRIES = 100
"""How many times (50 ms apart, 5 s in all) an ended bot's control groups are removed before
they are left for the next referee's sweep."""

EXIT_GRACE_S = 2.0
"""How long bots told to shut down get to finish by themselves before being terminated."""


async def stop_all(hub: BotHub, bots: Sequence[BotProcess]) -> None:
    """Say SHUTDOWN to every bot, let them exit on their own for a moment, then stop the rest.

    Asking first lets a bot receive the last GameEnd and leave cleanly; terminating first would
    cut it off mid-message.
    """
    for bot in bots:
        bot.stopping = True
    hub.close_all()
    with trio.move_on_after(EXIT_GRACE_S):
        for bot in bots:
            await bot.process.wait()
    for bot in bots:
        await bot.stop()


async def launch(
    hub: BotHub, address: str, spec: str, name: str, log_dir: Path,
    extra_env: dict[str, str] | None = None, cwd: Path | None = None,
    plan: sandbox.SandboxPlan | None = None, log_name: str | None = None,
    account: Account | None = None,
) -> BotProcess:
    """Issue a token for ``name`` and start the SPEC's process with it, in ``cwd`` if given
    (a SPEC may name files relative to the directory it was written for), or inside the
    sandbox ``plan`` describes (which has its own directory; ``address`` is then unused: the
    bot dials the plan's socket). ``account``: the bot's control group on this machine, which
    every process of the bot shares (its slots, its workers' processes), so that its share of
    CPU and memory is the bot's, not each process's; None: a group of the process's own. The
    caller runs ``watch``, which also copies a sandboxed bot's output into its log.
    """
    entry = hub.issue_token(name)
    # A bot command saying "python3 my_bot.py" should get this interpreter and its packages.
    given = {**(extra_env or {}), "CRAITS_TOKEN": entry.token, "CRAITS_BOT_NAME": name}
    argv = command_for(spec)
    private.make_dirs(log_dir)
    stderr_path = log_dir / f"{_safe(log_name or name)}.stderr.log"
    if plan is None:
        env = {**os.environ, "PATH": _bot_path(), **given, "CRAITS_SERVER": address}
        return BotProcess(entry, _start(argv, env, cwd, stderr_path, name, spec),
                          stderr_path)
    inside = f"unix:{sandbox.SOCKET_INSIDE}"
    bot_env = sandbox.bot_env(_bot_path(), {**given, "CRAITS_SERVER": inside})
    prepared = sandbox.prepare(plan, argv, bot_env)
    # bwrap's own environment (and its init's, pid 1 in the sandbox) holds no token: the bot's
    # is given with --setenv, read from a descriptor (``sandbox.prepare``).
    env = {"PATH": os.environ.get("PATH", os.defpath)}
    argv, cwd = prepared.argv, Path("/")
    limits = plan.limits
    group = BotGroup.make(GroupLimits(limits.cpu_percent, limits.memory_mb, limits.processes),
                          account)
    if group is not None:
        argv = group.join_argv(argv)
    reader, writer = os.pipe()
    try:
        process = _start(argv, env, cwd, writer, name, spec, prepared.fds)
    except LaunchError:
        os.close(reader)
        if group is not None:
            group.remove()
        raise
    finally:
        os.close(writer)
        prepared.close()
    budget = LogBudget(log_dir, _safe(name), limits.log_mb << 20)
    return BotProcess(entry, process, stderr_path, reader, limits.stderr_mb << 20, budget,
                      group, float(limits.cpu_s), sandboxed=True)


def _start(
    argv: list[str], env: dict[str, str], cwd: Path | None, output: Path | int, name: str,
    spec: str, pass_fds: tuple[int, ...] = (),
) -> spawn.ChildProcess:
    """Start the process with its stdout and stderr going to ``output`` (a log file, or a pipe's
    write end), forked by this event loop's thread (``spawn``: a sandbox's parent-death signal
    must not follow a worker thread that retires while the bot plays)."""
    try:
        with contextlib.ExitStack() as stack:
            target = (stack.enter_context(os.fdopen(private.open_append(output), "ab"))
                      if isinstance(output, Path) else output)
            return spawn.start(argv, env=env, cwd=cwd, stdout=target, stderr=target,
                               pass_fds=pass_fds)
    except OSError as exc:
        raise LaunchError(f"cannot start bot {name!r} ({spec!r}): {exc}") from exc



_INTERPRETERS = frozenset({"python", "python3", "node", "sh", "bash", "env", "ruby", "perl"})


class LaunchError(Exception):
    """A bot process could not be started."""


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "bot"
