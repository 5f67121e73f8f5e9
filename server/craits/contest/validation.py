"""Validation: a new version plays, sandboxed, before it is rated.

A version waits in the store's validation queue (``validating``) until the validator claims it
with a lease. It then plays, exactly as it will in the ladder:

1. the conformance positions of ``craits check`` (every kind of decision the rules can ask,
   then a short game and a decision after ``GameEnd``), in the sandbox an adversarial
   tournament gives a bot, under the contest's limits and move time (``checkrun``);
2. one self-play game at the contest's smallest table and one at its largest, every seat its
   own sandboxed process, through the ladder's own path (``dealsets``; ``selfplay``).

Each part runs in a child process of its own (``in_child``), so that its CPU is not taken from
the service's event loop, which serves the web pages and the matchmaker; the service only starts
it, waits for it (bounded), kills it if it must, and judges its report. The child runs below the
service's priority as the table workers do (``[ladder] worker_nice``).

A version that passes becomes ``rated`` (it plays); one that fails becomes ``rejected`` with a
reason in one line and an excerpt of its own log, which only its owner can read through the API.
A broken upload costs the contest one validation, never a ladder table.

A ``kill -9`` of the service in the middle leaves the version ``validating`` with its lease; the
next ``serve`` (which holds the contest's lock, so no other validator can be running) releases
the leases and plays it again from the start: replayed, not lost, never half judged.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Final

import trio

from craits import private
from craits.hosting import spawn

from .config import ContestConfig
from .dealsets import Setting
from .selfplay import SelfPlayOrder
from .store import ContestStore, Version
from .versions import VersionState

LEASE_S: Final = 900.0
"""A validation's lease: far longer than one takes (seconds to a minute), so only a dead
validator's lease ever expires. (One bounded by its children's limits, 300 + 600 s, could outlive
it; harmless, since a contest's lock lets one validator run, and it claims the next version
only once this one is judged.)"""
POLL_S: Final = 1.0
"""How often an idle validator looks at the queue."""
CHECK_TIMEOUT_S: Final = 300.0
"""The most the conformance child may take; beyond it the version is rejected as too slow."""
SELF_PLAY_TIMEOUT_S: Final = 600.0
"""The most the self-play child may take (its two games; seconds each for a bot that answers
as the ladder needs); beyond it the version is rejected as too slow."""
STOP_GRACE_S: Final = 30.0
"""How long a child past its time limit has to stop its bots as a run's end does
(``stop_at_limit``) before it is killed: its bots, told to stop, get 2 s to exit by themselves,
then 2 s each after SIGTERM, one after another (``launcher.stop_all``), at most 10 seats."""
SHUTDOWN_GRACE_S: Final = 10.0
"""How long a child has to stop its bots when the service stops (``interrupt``) before it is
killed. Killed at once, it could leave a sandbox behind: a bot process being started at that
moment has not yet tied its life to the child's (``bwrap --die-with-parent`` sets that only
once it runs, after the bot's shell has joined its control groups), so it would outlive it;
interrupted, the child finishes that start, then stops every bot it started (a service killed
outright leaves it to the next start's sweep of the groups, ``botgroup.sweep``). Shorter than
``STOP_GRACE_S``: a service's shutdown should not wait long."""
CHILD_ATTEMPTS: Final = 3
"""How many times a validation child that ends without a report is started (``in_child``)."""
LOG_EXCERPT: Final = 4000
"""Characters of a rejected version's log its owner is shown (its end, where the error is)."""

log = logging.getLogger("craits.contest.validation")


@dataclass(frozen=True, slots=True)
class Verdict:
    """A validation's outcome: passed, or the reason and the log excerpt for the owner."""

    passed: bool
    reason: str = ""
    log: str = ""


@dataclass(frozen=True, slots=True)
class ContestRun:
    """What validation needs of the contest."""

    directory: Path
    config: ContestConfig
    store: ContestStore
    clock: Callable[[], float] = time.time

    def bot_dir(self, version: Version) -> Path:
        """Where the version's files are."""
        return self.directory / "bots" / version.content_hash

    def logs(self, *parts: str) -> Path:
        """A directory for bot logs (under ``logs/``, which no sandbox shows)."""
        path = self.directory.resolve() / "logs"
        for part in parts:
            path = path / part
        private.make_dirs(path)
        return path

    def setting(self) -> Setting:
        """The deal sets' rules, clocks, limits and what their sandboxes hide."""
        return Setting(self.config.rules, self.config.time, self.config.limits,
                       hidden=(self.directory.resolve() / "contest.db",
                               self.directory.resolve() / "logs"))


async def validation_loop(contest: ContestRun) -> None:
    """Validate queued versions one at a time, for ever (cancel to stop)."""
    while True:
        version = contest.store.claim_validation(contest.clock(), LEASE_S)
        if version is None:
            await trio.sleep(POLL_S)
            continue
        verdict = await validate(contest, version)
        if verdict.passed:
            contest.store.set_state(version.id, VersionState.RATED, contest.clock())
        else:
            contest.store.set_state(version.id, VersionState.REJECTED, contest.clock(),
                                    verdict.reason, verdict.log)


async def validate(contest: ContestRun, version: Version) -> Verdict:
    """Play the version's conformance run, then its self-play games; the first failure
    decides."""
    verdict = await conformance(contest, version)
    if verdict.passed:
        verdict = await self_play(contest, version)
    return verdict


async def conformance(contest: ContestRun, version: Version) -> Verdict:
    """``craits check``'s positions, sandboxed, in a child started in the version's
    directory."""
    logs = contest.logs("validation", f"v{version.id}", "check")
    options = {"command": version.command, "move_ms": contest.config.time.move_ms,
               "log_dir": str(logs),
               "limits": {f.name: getattr(contest.config.limits, f.name)
                          for f in fields(contest.config.limits)}}
    ran = await in_child(Child("conformance run", "craits.contest.checkrun", json.dumps(options),
                               CHECK_TIMEOUT_S, contest.config.ladder.worker_nice, (logs,)),
                         version, contest.bot_dir(version), logs)
    if ran.report is None:
        return Verdict(False, ran.failure("the conformance checks", "the conformance run"),
                       excerpt(logs, contest))
    report = ran.report
    if report.get("ok"):
        return Verdict(True)
    failed = [c for c in report.get("checks", []) if not c.get("passed")]
    first = failed[0] if failed else {"name": "checks", "detail": "none ran"}
    reason = (f"conformance: {len(failed)} of {len(report.get('checks', []))} checks failed; "
              f"first, {first['name']}: {first['detail']}")
    shown = "\n".join(f"check {c['name']}: {c['detail']}" for c in failed[:10])
    return Verdict(False, scrub(reason, contest), scrub(shown, contest) + "\n--- your bot's "
                   "output ---\n" + excerpt(logs, contest))


async def self_play(contest: ContestRun, version: Version) -> Verdict:
    """One self-play game at the smallest and one at the largest table size, every seat a
    sandboxed process of the version, in a child (``selfplay``) given the service's loaded
    configuration; any fault of any seat rejects it."""
    config = contest.config
    logs = contest.logs("validation", f"v{version.id}")
    tables = {size: contest.logs("validation", f"v{version.id}", f"self-{size}")
              for size in sorted({config.min_seats, config.max_seats})}
    order = SelfPlayOrder(f"v{version.id}", contest.bot_dir(version), version.command,
                          contest.setting(), tuple(tables.items()))
    ran = await in_child(Child("self-play run", "craits.contest.selfplay", order.encode(),
                               SELF_PLAY_TIMEOUT_S, contest.config.ladder.worker_nice,
                               tuple(tables.values())),
                         version, contest.bot_dir(version), logs)
    if ran.report is None:
        return Verdict(False, ran.failure("the self-play games", "the self-play run"),
                       excerpt(tables.values(), contest))
    if ran.report.get("passed"):
        return Verdict(True)
    return Verdict(False, scrub(str(ran.report["reason"]), contest),
                   excerpt(tables[int(ran.report["size"])], contest))


@dataclass(frozen=True, slots=True)
class Child:
    """One part of a validation as a child process: ``python -m MODULE ARGUMENT NICE``, which
    prints its report as its last line of output."""

    name: str
    """What the service's log calls it."""
    module: str
    argument: str
    timeout_s: float
    """The most it may take; beyond it the version is rejected as too slow."""
    nice: int
    """How far below the service's its CPU priority is, its sandboxed bots' too: ``[ladder]
    worker_nice``, which the child sets as a table worker does (``tableworker.run_below``), in
    the service's session as a table worker is (``in_child``). Its games are batch work like
    the ladder's, and the pages should not wait on an upload's any more than on a table's."""
    bot_logs: tuple[Path, ...]
    """Where its bots' logs go (``excerpt`` reads them; ``stop_at_limit`` ends them)."""


@dataclass(frozen=True, slots=True)
class Ran:
    """How a validation child ended: its report, or why there is none."""

    report: dict[str, Any] | None
    timeout_s: float | None = None
    """Set when the child was killed for taking longer than this."""
    status: int = 0
    """The last attempt's exit status, when no attempt left a report."""

    def failure(self, what: str, run_name: str) -> str:
        """The owner's reason when there is no report (``what`` took too long, or
        ``run_name`` could not be judged)."""
        if self.timeout_s is not None:
            return f"{what} took over {self.timeout_s:g} s"
        return (f"{run_name} could not be judged (exit status {self.status}, "
                f"{CHILD_ATTEMPTS} attempts); the organiser can see why in the service's logs")


async def in_child(child: Child, version: Version, cwd: Path, logs: Path) -> Ran:
    """Run ``child`` for ``version``, started in ``cwd`` with its output in ``logs``
    (``NAME.report`` and ``NAME.stderr``, which only the organiser reads, ``NAME`` the module's
    last name); until it reports, at most ``CHILD_ATTEMPTS`` times.

    A child that ends without a report died of the service's own trouble, not the version's (the
    version's processes are sandboxed apart from it, and every way a bot can fail is a report):
    it is started again, and the organiser is told in the service's log. One that takes longer
    than its ``timeout_s`` is stopped (``stop_at_limit``) and not tried again: the games' clocks
    bound how long a version may think, so it is the version that made the run crawl, and a
    second try would hold up every upload queued behind it. Whatever ends the wait (its end, its
    timeout, or the service stopping: a cancellation, which interrupts it with a short grace,
    ``SHUTDOWN_GRACE_S``, since the lease replays the whole validation), the child is dead when
    this returns or raises, so it leaves no process behind, nor do its sandboxes (which die
    with it). It runs in a process group of its own in the service's session, not a session of
    its own, so that its lower priority (``Child.nice``) weighs against the service's pages
    (the kernel's autogroups)."""
    name = child.module.rsplit(".", 1)[-1]
    out, stderr_path = logs / f"{name}.report", logs / f"{name}.stderr"
    status = 0
    for attempt in range(1, CHILD_ATTEMPTS + 1):
        with open(out, "wb") as stdout, open(stderr_path, "wb") as stderr:
            process = spawn.start([sys.executable, "-m", child.module, child.argument,
                                   str(child.nice)], env=dict(os.environ), cwd=cwd,
                                  stdout=stdout, stderr=stderr, own_session=False)
        try:
            with trio.move_on_after(child.timeout_s) as waited:
                status = await process.wait()
            if waited.cancelled_caught:
                await stop_at_limit(process, child)
        finally:
            if process.returncode is None:  # the service is stopping
                with trio.CancelScope(shield=True):
                    # Stopped at its limit already: a second SIGINT would cut short the stop
                    # under way (its bots' pipes read to the end), so it only gets less time.
                    await interrupt(process, SHUTDOWN_GRACE_S,
                                    signalled=waited.cancelled_caught)
        if waited.cancelled_caught:
            log.warning("version %d: its %s took over %g s and was stopped", version.id,
                        child.name, child.timeout_s)
            return Ran(None, timeout_s=child.timeout_s)
        report = _last_json_line(out.read_text(errors="replace"))
        if report is not None:
            return Ran(report)
        log.warning("version %d: its %s ended with exit status %d and no report (attempt %d "
                    "of %d); its stderr ends:\n%s", version.id, child.name, status, attempt,
                    CHILD_ATTEMPTS, stderr_path.read_text(errors="replace")[-LOG_EXCERPT:])
    return Ran(None, status=status)


async def stop_at_limit(process: spawn.ChildProcess, child: Child) -> None:
    """End ``child`` (``process``), past its time limit, as a run's end does, then say so in
    its bots' logs.

    Why not kill it at once: its bots' output reaches their logs only through it (a sandboxed
    bot writes into a pipe the child reads, ``launcher.BotProcess.copy_output``), so a child
    killed outright takes with it whatever it had not copied yet, and its bots (which die with
    it) never get to write their last words nor the referee its closing line: a bot that hung
    after printing why could leave its owner an empty log. Interrupted as Ctrl-C interrupts a
    command (``checkrun.child_main``), the child stops its bots as any run's end does (told
    to stop, then SIGTERM, then SIGKILL), reads their pipes to the end, and exits; it is
    killed only if it has not within ``STOP_GRACE_S``. Each of its bots' logs then ends with
    the referee's line saying the run was stopped at its limit."""
    await interrupt(process, STOP_GRACE_S)
    line = (f"[craits: the {child.name} reached its time limit ({child.timeout_s:g} s) and was "
            "stopped]\n").encode()
    for path in bot_log_files(child.bot_logs):
        with open(path, "r+b") as file:
            if file.seek(0, os.SEEK_END):
                file.seek(-1, os.SEEK_END)
                if file.read(1) != b"\n":  # the referee's lines start a line of their own
                    file.write(b"\n")
            file.write(line)


async def interrupt(process: spawn.ChildProcess, grace_s: float, signalled: bool = False
                    ) -> None:
    """SIGINT ``process`` (a validation child: ``checkrun.child_main`` ends its run as Ctrl-C
    ends a command, its bots stopped), unless it was ``signalled`` already (the stop under
    way would be cut short: the second Ctrl-C of a command), then SIGKILL it if it has not
    exited within ``grace_s``; returns once it has exited."""
    if not signalled:
        os.kill(process.pid, signal.SIGINT)
    with trio.move_on_after(grace_s):
        await process.wait()
    if process.returncode is None:
        os.kill(process.pid, signal.SIGKILL)
        await process.wait()


def bot_log_files(directories: Iterable[Path]) -> list[Path]:
    """The bots' logs in ``directories``, in order (each directory's sorted by path)."""
    return [p for d in directories for p in sorted(d.rglob("*.stderr.log"))]


def _last_json_line(text: str) -> dict[str, Any] | None:
    try:
        report = json.loads(text.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None
    return report if isinstance(report, dict) else None


def excerpt(logs: Path | Iterable[Path], contest: ContestRun) -> str:
    """The end of the bot's logs in ``logs`` (one directory or several, in order: its stderr,
    as the launcher kept it: control characters escaped, only the referee's lines starting with
    ``[craits:``)."""
    parts = []
    for path in bot_log_files([logs] if isinstance(logs, Path) else logs):
        text = path.read_text(errors="replace").strip()
        if text:
            parts.append(f"== {path.name} ==\n{text[-LOG_EXCERPT:]}")
    return scrub("\n".join(parts)[-LOG_EXCERPT:], contest)


def scrub(text: str, contest: ContestRun) -> str:
    """``text`` without the service's own paths (a contestant learns nothing of the machine)."""
    return text.replace(str(contest.directory.resolve()) + "/", "").replace(
        str(contest.directory.resolve()), ".")
