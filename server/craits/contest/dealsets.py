"""One deal set among uploaded versions, played exactly as an adversarial tournament plays it.

Nothing here is new machinery: the deal set is a one-meeting tournament (``TournamentConfig``
with ``trust = "adversarial"``, duplicate deals, the versions as command bots in their own
directories), its games are that tournament's jobs (``build_schedule``, keyed by the table's
secret key), and they are played by ``LocalTables`` with a ``BotPool``. So every fair-play rule
of adversarial tournaments holds in the contest by construction: every version runs in a
bubblewrap sandbox that shows it only its own directory, seatings are played seating-major
with every sandboxed process ended between two seatings (no process of a version ever sees two
seatings of one deal), deals and game ids come from a secret key, and the contest's database
and logs are masked. Validation's self-play games go through here too.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import trio

from craits.dealkey import DealKey
from craits.engine import Game, Rules
from craits.exception_groups import sole_exception
from craits.hosting.sandbox import SandboxLimits
from craits.referee.bridge import DEFAULT_HOST
from craits.referee.policy import FailurePolicy, TimeControl
from craits.tournament.plan.config import BotKind, BotSpec, TournamentConfig
from craits.tournament.plan.schedule import Job, build_schedule
from craits.tournament.run.botpool import BotPool, Isolation
from craits.tournament.run.local_tables import LocalTables, referee_for
from craits.tournament.store.game_records import FinishedGame

CONNECT_S: Final = 30.0
"""How long a version's first process has to connect (the tournaments' launch timeout)."""


@dataclass(frozen=True, slots=True)
class Entrant:
    """One seat's version: its label (the bot's name in logs), where it lives, how it starts."""

    label: str
    directory: Path
    command: str


@dataclass(frozen=True, slots=True)
class Setting:
    """What the contest fixes for every deal set: rules, clocks, sandbox limits, where the bots'
    logs go and what their sandboxes must never show."""

    rules: Rules
    time: TimeControl
    limits: SandboxLimits
    failure: FailurePolicy = field(default_factory=FailurePolicy)
    hidden: tuple[Path, ...] = ()


OnGame = Callable[[Job, FinishedGame], Awaitable[None]]
Watch = Callable[[Job], Callable[[Game], None]]
"""Each job's observer of its game as it is played (``LocalTables.watch``)."""


def tournament_of(entrants: Sequence[Entrant], setting: Setting) -> TournamentConfig:
    """The one-meeting adversarial tournament that a deal set of ``entrants`` is."""
    bots = tuple(BotSpec(name=e.label, kind=BotKind.COMMAND, command=e.command,
                         directory=str(e.directory.resolve()), limits=setting.limits)
                 for e in entrants)
    return TournamentConfig(bots=bots, name="contest", trust="adversarial", deals="duplicate",
                            table_size=len(bots), deal_sets=1, concurrency=1,
                            max_tables_per_bot=1, rules=setting.rules, time=setting.time,
                            failure=setting.failure)


async def play_deal_set(entrants: Sequence[Entrant], key: DealKey, setting: Setting,
                        log_dir: Path, on_game: OnGame, seatings: Sequence[int] | None = None,
                        watch: Watch | None = None) -> None:
    """Play the deal set's seatings (all, or those in ``seatings``) in order, each version
    sandboxed with one process per seating; ``on_game`` records each game as it ends (before
    the next starts); ``watch`` observes each game while it is played (live spectators).
    Raises ``BotPoolError`` (``BotStartError``: a version that exits or never connects;
    ``BotCrashError``: one that keeps dying) naming the version."""
    config = tournament_of(entrants, setting)
    jobs = [job for job in build_schedule(config, "contest", key)
            if seatings is None or job.rotation in seatings]
    isolation = Isolation(config.isolated, (*setting.hidden, log_dir.resolve()))
    try:
        await _play(config, jobs, isolation, log_dir, on_game, watch)
    except BaseExceptionGroup as group:  # the nurseries wrap the one real error
        raise sole_exception(group) from None


async def _play(config: TournamentConfig, jobs: Sequence[Job], isolation: Isolation,
                log_dir: Path, on_game: OnGame, watch: Watch | None) -> None:
    async with (referee_for(config, (DEFAULT_HOST, 0), isolation) as referee,
                trio.open_nursery() as nursery):
        pool = BotPool(referee, nursery, log_dir, isolation=isolation, say=lambda line: None)
        try:
            await pool.start(config.bots, CONNECT_S)
            tables = LocalTables(pool, config, "contest")
            tables.watch = watch
            for job in jobs:
                finished = await tables.play(job)
                with trio.CancelScope(shield=True):  # a played game is recorded, not dropped
                    await on_game(job, finished)
        finally:
            with trio.CancelScope(shield=True):
                await pool.stop()
            nursery.cancel_scope.cancel()
