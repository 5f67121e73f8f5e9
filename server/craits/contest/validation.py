"""Validation: a new version plays, sandboxed, before it is rated.

A version waits in the store's validation queue (``validating``) until the validator claims it
with a lease. It then plays, exactly as it will in the ladder:

1. the conformance positions of ``craits check`` (every kind of decision the rules can ask,
   then a short game and a decision after ``GameEnd``), in the sandbox an adversarial
   tournament gives a bot, under the contest's limits and move time (``checkrun``);
2. one self-play game at the contest's smallest table and one at its largest, every seat its
   own sandboxed process, through the ladder's own path (``dealsets``).

A version that passes becomes ``rated`` (it plays); one that fails becomes ``rejected`` with a
reason in one line and an excerpt of its own log, which only its owner can read through the API.
A broken upload costs the contest one validation, never a ladder table.

A ``kill -9`` of the service in the middle leaves the version ``validating`` with its lease; the
next ``serve`` (which holds the contest's lock, so no other validator can be running) releases
the leases and plays it again from the start: replayed, not lost, never half judged.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Final

import trio

from craits import private
from craits.dealkey import DealKey
from craits.hosting import spawn
from craits.tournament.plan.schedule import Job
from craits.tournament.run.botpool import BotPoolError
from craits.tournament.store.game_records import FinishedGame

from .config import ContestConfig
from .dealsets import Entrant, Setting, play_deal_set
from .store import ContestStore, Version
from .versions import VersionState

LEASE_S: Final = 900.0
"""A validation's lease: far longer than one takes (seconds to a minute), so only a dead
validator's lease ever expires."""
POLL_S: Final = 1.0
"""How often an idle validator looks at the queue."""
CHECK_TIMEOUT_S: Final = 300.0
"""The most the conformance child may take; beyond it the version is rejected as too slow."""
LOG_EXCERPT: Final = 4000
"""Characters of a rejected version's log its owner is shown (its end, where the error is)."""


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
    out = logs / "report.json"
    with open(out, "wb") as stdout, open(logs / "checkrun.stderr", "wb") as stderr:
        child = spawn.start([sys.executable, "-m", "craits.contest.checkrun",
                             json.dumps(options)], env=dict(os.environ),
                            cwd=contest.bot_dir(version), stdout=stdout, stderr=stderr)
    with trio.move_on_after(CHECK_TIMEOUT_S):
        status = await child.wait()
        return _judge_report(out.read_text(errors="replace"), status, logs, contest)
    with trio.CancelScope(shield=True):
        os.kill(child.pid, 9)
        await child.wait()
    return Verdict(False, f"the conformance checks took over {CHECK_TIMEOUT_S:g} s",
                   excerpt(logs, contest))


def _judge_report(text: str, status: int, logs: Path, contest: ContestRun) -> Verdict:
    try:
        report: dict[str, Any] = json.loads(text.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return Verdict(False, f"the conformance run could not be judged (exit status {status})"
                       "; the organiser can see why in the service's logs",
                       excerpt(logs, contest))
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
    sandboxed process of the version; any fault of any seat rejects it."""
    config = contest.config
    for size in sorted({config.min_seats, config.max_seats}):
        logs = contest.logs("validation", f"v{version.id}", f"self-{size}")
        entrants = [Entrant(f"v{version.id}-{seat}", contest.bot_dir(version), version.command)
                    for seat in range(size)]
        games: list[FinishedGame] = []

        async def keep(job: Job, game: FinishedGame, into: list[FinishedGame] = games) -> None:
            into.append(game)

        try:
            await play_deal_set(entrants, DealKey.fresh(), contest.setting(), logs, keep,
                                seatings=[0])
        except BotPoolError as exc:
            return Verdict(False, scrub(f"self-play at {size} seats: {exc}", contest),
                           excerpt(logs, contest))
        for game in games:
            faults = game.play.faults
            if faults or any(game.forfeited):
                shown = "; ".join(f"seat {f.seat}: {f.action} ({f.reason}): {f.detail}"
                                  for f in faults[:3])
                return Verdict(False, scrub(f"self-play at {size} seats: {len(faults)} "
                                            f"fault(s): {shown or 'a seat forfeited'}", contest),
                               excerpt(logs, contest))
    return Verdict(True)


def excerpt(logs: Path, contest: ContestRun) -> str:
    """The end of the bot's logs in ``logs`` (its stderr, as the launcher kept it: control
    characters escaped, only the referee's lines starting with ``[craits:``)."""
    parts = []
    for path in sorted(logs.rglob("*.stderr.log")):
        text = path.read_text(errors="replace").strip()
        if text:
            parts.append(f"== {path.name} ==\n{text[-LOG_EXCERPT:]}")
    return scrub("\n".join(parts)[-LOG_EXCERPT:], contest)


def scrub(text: str, contest: ContestRun) -> str:
    """``text`` without the service's own paths (a contestant learns nothing of the machine)."""
    return text.replace(str(contest.directory.resolve()) + "/", "").replace(
        str(contest.directory.resolve()), ".")
