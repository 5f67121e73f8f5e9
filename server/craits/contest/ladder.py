"""The ladder: deal sets among the playing versions, for as long as the service runs.

Each turn of the loop asks the matchmaker (``matchmaking.Matchmaker``) for the next deal set
among the versions that play now (each contestant's latest ``[versions] playing`` rated
versions), *claims* it in the store, plays its seatings one after another as an adversarial
tournament would (``dealsets``: every version sandboxed, one process per seating, secret deals
from the contest's key), records each game as it ends, then refits the board and judges the
faults. One table at a time: two cores serve the API, the validator and the bots.

Nothing lost, nothing twice (``ladderstore``): a table is claimed before its first game, every
game is recorded once under ``UNIQUE (table_id, rotation)``, and on start the ladder first plays
the missing seatings of tables a killed predecessor claimed (same versions, same deal, fresh
processes), so every claimed deal set ends whole. The matchmaker's memory is rebuilt from the
store (it learns every recorded game again, and trusts the store's game counts).

A version that faults too often (``[ladder] fault_percent`` of its last ``fault_window`` games)
is suspended with the reason, and one that cannot even start in a table is suspended at once;
both stop playing, and their owner sees why.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Final

import trio

from craits.engine import Game
from craits.ratings.results import ScoredGame
from craits.tournament.plan.schedule import Job
from craits.tournament.run.botpool import BotPoolError
from craits.tournament.store.game_records import FinishedGame

from .board import board_rows
from .dealsets import Entrant, play_deal_set
from .ladderstore import (
    LadderTable,
    claim_table,
    deal_key,
    finish_table,
    game_at,
    games_per_version,
    open_tables,
    publish_board,
    recent_faults,
    record_game,
    scored_games,
    table_key,
)
from .live import LiveGames
from .matchmaking import MatchConfig, Matchmaker
from .matchmaking import Version as Candidate
from .phases import finals_games, finals_of, finals_turn
from .prune import prune_archives
from .store import Version
from .validation import ContestRun, scrub
from .verdicts import judge, predecessors, record_refit
from .versions import VersionState

POLL_S: Final = 1.0
"""How often an idle ladder (too few playing versions) looks again."""
PRUNE_EVERY: Final = 20
"""Tables between two prunings of old versions' files (a pass reads every version's row)."""


class Ladder:
    """The loop that keeps the board filled (module doc)."""

    def __init__(self, contest: ContestRun, seed: int | None = None,
                 live: LiveGames | None = None) -> None:
        self.contest = contest
        self.live = LiveGames() if live is None else live
        """Where the games being played are shown, public events only (``live``)."""
        self.store = contest.store
        config = contest.config
        sizes = tuple(range(config.min_seats, config.max_seats + 1))
        self.matchmaker = Matchmaker(MatchConfig(table_sizes=sizes),
                                     seed=random.SystemRandom().getrandbits(32)
                                     if seed is None else seed)
        self.key = deal_key(self.store)
        self.tables_played = 0

    async def run(self) -> None:
        """Finish what a killed predecessor claimed, then play for ever (cancel to stop)."""
        for table in open_tables(self.store):
            await self.play(table)
        await self.refresh()
        self.prune()
        while True:
            if not await self.step():
                await trio.sleep(POLL_S)

    async def step(self) -> bool:
        """Choose, claim and play one deal set; False when too few versions may play, or the
        finals are over (``phases``: the finals start and end here)."""
        if not finals_turn(self.contest.config, self.store, self.games,
                           [v.id for v in self.playing()], self.contest.clock()):
            return False
        table = self.next_table()
        if table is None:
            return False
        await self.play(table)
        if self.tables_played % PRUNE_EVERY == 0:
            self.prune()
        return True

    def prune(self) -> None:
        """Old versions' files beyond ``[versions] keep`` (``prune``): between tables, so
        never under a table of this ladder."""
        prune_archives(self.contest.directory, self.contest.config, self.store)

    def playing(self) -> list[Version]:
        """The versions that play now: each contestant's latest rated ones, or in the finals
        the finalists still rated."""
        finals = finals_of(self.store)
        if finals is not None:
            found = [self.store.version(v) for v in finals.finalists]
            return [v for v in found if v is not None and v.state == VersionState.RATED]
        latest = self.contest.config.playing_versions
        return [v for c in self.store.contestants()
                for v in self.store.playing_versions(c.id, latest)]

    def games(self) -> list[ScoredGame]:
        """The games that count: every one, or in the finals the finals' alone (ratings
        reset, ``phases``)."""
        return finals_games(finals_of(self.store), scored_games(self.store))

    def next_table(self) -> LadderTable | None:
        """The matchmaker's next deal set, claimed; None when it has none to give."""
        counts = games_per_version(self.store)
        candidates = [Candidate(str(v.id), v.state_at, counts.get(v.id, 0))
                      for v in self.playing()]
        chosen = self.matchmaker.next_tables(candidates, self.games(),
                                             now=self.contest.clock(), count=1)
        if not chosen:
            return None
        return claim_table(self.store, [int(v) for v in chosen[0].versions], chosen[0].reason,
                           self.contest.clock())

    async def play(self, table: LadderTable) -> None:
        """Play the table's missing seatings, recording each game; then the board and the
        faults."""
        versions = [self.store.version(v) for v in table.versions]
        known = [v for v in versions if v is not None]
        if len(known) != len(versions):
            finish_table(self.store, table.id, self.contest.clock(), void="a version is gone")
            return
        labels = {f"v{v.id}": v.id for v in known}
        entrants = [Entrant(f"v{v.id}", self.contest.bot_dir(v), v.command) for v in known]

        async def record(job: Job, game: FinishedGame) -> None:
            record_game(self.store, table.id, job.rotation, [labels[s] for s in job.seats],
                        game, job.game_id, self.contest.clock(), (job.seed, job.rules_json))
            self.live.end(f"{table.id}-{job.rotation}", game_at(self.store, table.id,
                                                                job.rotation))

        owners = {c.id: c.name for c in self.store.contestants()}
        names = {f"v{v.id}": f"{owners.get(v.contestant_id, '?')} v{v.number}" for v in known}

        def watch(job: Job) -> Callable[[Game], None]:
            return self.live.start(f"{table.id}-{job.rotation}", [names[s] for s in job.seats])

        try:
            await play_deal_set(entrants, table_key(self.key, table.id), self.contest.setting(),
                                self.contest.logs("tables", str(table.id)), record,
                                table.missing, watch)
        except BotPoolError as exc:
            self._void(table, known, str(exc))
        else:
            finish_table(self.store, table.id, self.contest.clock())
        finally:
            self.live.end_all(f"{table.id}-")
        self.tables_played += 1
        self.judge_faults(known)
        await self.refresh()

    def _void(self, table: LadderTable, versions: Sequence[Version], why: str) -> None:
        """A version could not start or kept dying: the table cannot be played; that version
        is suspended (it would fail every table it is given)."""
        finish_table(self.store, table.id, self.contest.clock(), void=why)
        for version in versions:
            if f"'v{version.id}'" in why or f"'v{version.id}-" in why:
                self._suspend(version, f"it could not play a ladder table: "
                                       f"{scrub(why, self.contest)}")

    def judge_faults(self, versions: Sequence[Version]) -> None:
        """Suspend each version over the fault limit (``[ladder]``)."""
        settings = self.contest.config.ladder
        for version in versions:
            games, faulted = recent_faults(self.store, version.id, settings.fault_window)
            if faulted > settings.fault_limit:
                self._suspend(version, f"{faulted} of its last {games} games had a fault of its "
                                       f"own, over the limit of {settings.fault_percent}% of "
                                       f"{settings.fault_window} games; see its faults")

    def _suspend(self, version: Version, reason: str) -> None:
        current = self.store.version(version.id)
        if current is not None and current.state == VersionState.RATED:
            self.store.set_state(version.id, VersionState.SUSPENDED, self.contest.clock(),
                                 reason)

    async def refresh(self) -> None:
        """Refit the ratings from every recorded game and publish the board, then keep it as
        each version's history with the verdicts against predecessors (``verdicts``); the fits
        in a worker thread: the API keeps answering meanwhile."""
        games = self.games()
        playing = self.playing()
        contestants = self.store.contestants()
        provisional = self.contest.config.ladder.provisional
        rows = await trio.to_thread.run_sync(board_rows, games, playing, contestants,
                                             provisional)
        publish_board(self.store, rows, self.contest.clock())
        before = predecessors(self.store, [int(r["version_id"]) for r in rows])
        verdicts = await trio.to_thread.run_sync(judge, games, rows, before)
        record_refit(self.store, rows, verdicts, self.contest.clock())
