"""The ladder: deal sets among the playing versions, for as long as the service runs.

Each turn of the loop asks the matchmaker (``matchmaking.Matchmaker``) for the next deal set
among the versions that play now (each contestant's latest ``[versions] playing`` rated
versions), *claims* it in the store, plays its seatings one after another as an adversarial
tournament would (``dealsets``: every version sandboxed, one process per seating, secret deals
from the contest's key), records each game as it ends, then refits the board and judges the
faults. ``workers`` tables at a time, each in a table worker process of its own
(``tableworker_pool``: the service process chooses, claims and shows, the workers play and
record), or with ``workers = 0`` one table at a time in the service's own process, or each in
an actor on a Ray cluster (``raytables``: the actors play, the service records).

The tables in flight (claimed, not ended) count for the matchmaker as games already scheduled,
so a new version is not seated at every table at once. A version may sit at two tables at once:
their deals differ (every table has its own key), each table's sandboxes and processes are its
own, so fair play is untouched. In the finals only the finals' games count, for the matchmaker's
game counts as for the board (a matchmaker of its own, started afresh with the finals), and no
table is claimed that the finalists' deal sets in flight already cover.

Nothing lost, nothing twice (``ladderstore``): a table is claimed before its first game, every
game is recorded once under ``UNIQUE (table_id, rotation)``, and on start the ladder first plays
the missing seatings of tables a killed predecessor claimed (same versions, same deal, fresh
processes), so every claimed deal set ends whole. The matchmaker's memory is rebuilt from the
store (it learns every recorded game again, and trusts the store's game counts). A worker
process (or Ray actor, or node) that dies, kill -9 included, loses only the game it was
playing: a new worker replays
the table's missing seatings (``WORKER_DEATHS`` deaths at one table void it instead, so a table
that kills its workers cannot stop the ladder).

Once the finals are done the ladder claims no more tables and stops looking (the tables still
in flight end, and the board is refitted after them); a phase that never moves back needs no
polling.

A version that faults too often (``[ladder] fault_percent`` of its last ``fault_window`` games)
is suspended with the reason, and one that cannot even start in a table is suspended at once;
both stop playing, and their owner sees why.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import random
from collections import Counter
from collections.abc import Sequence
from typing import Final

import trio

from craits.ratings.results import ScoredGame
from craits.tournament.run.ray_pool import RayCluster

from .dealsets import Entrant
from .ladderstore import (
    LadderTable,
    claim_table,
    deal_key,
    finish_table,
    open_tables,
    recent_faults,
    scored_games,
    table_key,
)
from .live import LiveGames
from .matchmaking import MatchConfig, Matchmaker
from .matchmaking import Version as Candidate
from .phases import deal_sets_played, finals_games, finals_of, finals_turn, phase_now
from .prune import prune_archives
from .raytables import open_ray_players
from .refit import Refitter
from .store import DB_NAME, Version
from .tableworker import TableOrder, WorkerSetup
from .tableworker_pool import TablePlayer, WorkerGone, open_players
from .uploads import archive_limits
from .validation import ContestRun, scrub
from .versions import VersionState

POLL_S: Final = 1.0
"""How often an idle ladder (too few playing versions) looks again."""
PRUNE_EVERY: Final = 20
"""Tables between two prunings of old versions' files (a pass reads every version's row)."""
WORKER_DEATHS: Final = 3
"""Worker processes one table may see die before it is voided (module doc)."""

log = logging.getLogger("craits.contest.ladder")


class Ladder:
    """The loop that keeps the board filled (module doc)."""

    def __init__(self, contest: ContestRun, seed: int | None = None,
                 live: LiveGames | None = None, workers: int | None = 0,
                 ray: RayCluster | None = None) -> None:
        self.contest = contest
        self.live = LiveGames() if live is None else live
        """Where the games being played are shown, public events only (``live``)."""
        self.workers = workers
        """Table worker processes (tables at once); 0: one table at a time in this process.
        With ``ray``, actors on the cluster (None: one per CPU of the cluster)."""
        self.ray = ray
        """Play the tables on this Ray cluster's actors (``raytables``) instead."""
        self.store = contest.store
        self._seed = random.SystemRandom().getrandbits(32) if seed is None else seed
        self.matchmaker = self._new_matchmaker()
        self._finals_at: float | None = None
        """When the finals this matchmaker serves started (None: before the finals)."""
        self.key = deal_key(self.store)
        self.tables_played = 0
        self.in_flight: dict[int, LadderTable] = {}
        """Tables claimed and given to a player, not yet ended."""
        self.refitter = Refitter(self.store, contest.config, self.playing, contest.clock)
        """The board's refits: games read once, at most every ``[ladder] refit_s``
        (``refit``)."""
        self._read_up_to = 0
        """The last game id the matchmaker was given: it is given each game once."""
        self._counts: Counter[int] = Counter()
        """Games each version has played that count now (the finals' alone in the finals)."""

    def _new_matchmaker(self) -> Matchmaker:
        """A matchmaker that seats a version first until it has its ``[ladder]
        provisional`` deal sets (at the smallest tables), so that a clear leader, which the
        information rule would rarely seat, is not left provisional for long, and that spends
        the tables as ``[ladder] top_weight``, ``top_after_tau``, ``rate_least`` and
        ``rate_most`` say."""
        config = self.contest.config
        sizes = tuple(range(config.min_seats, config.max_seats + 1))
        default = MatchConfig(table_sizes=sizes)
        fresh = max(default.new_games, config.ladder.provisional * config.min_seats)
        return Matchmaker(dataclasses.replace(
            default, new_games=fresh, top_weight=config.ladder.top_weight,
            top_after_tau=config.ladder.top_after_tau, band=config.ladder.rate_band),
            seed=self._seed)

    async def run(self) -> None:
        """Finish what a killed predecessor claimed, then play for ever (cancel to stop)."""
        setup = WorkerSetup(self.contest.directory.resolve() / DB_NAME, self.contest.setting(),
                            self.contest.config.ladder.worker_nice)
        opened = (open_players(setup, self.workers or 0, self.store, self.contest.clock)
                  if self.ray is None else
                  open_ray_players(setup, self.ray, self.workers,
                                   archive_limits(self.contest.config.uploads), self.store,
                                   self.contest.clock))
        async with opened as players, trio.open_nursery() as nursery:
            await nursery.start(self.refitter.run)
            free_in, free = trio.open_memory_channel[TablePlayer](len(players))
            for player in players:
                free_in.send_nowait(player)
            for table in open_tables(self.store):
                self._start(nursery, await free.receive(), free_in, table)
            await self.refresh()
            self.prune()
            while True:
                player = await free.receive()
                if finals_of(self.store) is not None and self.refitter.behind():
                    # The finals' board is current before they may be declared done (the
                    # results are that board); refitted only when a table ended or the
                    # finalists changed since the last refit, so an idle ladder reads nothing.
                    await self.refresh()
                claimed = await self.claim()
                if claimed is None:
                    free_in.send_nowait(player)
                    if phase_now(self.contest.config, self.store, self.contest.clock()) == "done":
                        break  # never moves back: nothing to claim ever again (module doc)
                    await trio.sleep(POLL_S)
                else:
                    self._start(nursery, player, free_in, claimed)

    def _start(self, nursery: trio.Nursery, player: TablePlayer,
               free: trio.MemorySendChannel[TablePlayer], table: LadderTable) -> None:
        """Play ``table`` on ``player`` in the background; the player is free again once the
        table has ended and its faults are judged (the board is refitted after that)."""
        self.in_flight[table.id] = table

        async def played() -> None:
            try:
                versions = await self.play(table, player)
            finally:
                self.in_flight.pop(table.id, None)
                free.send_nowait(player)
            if versions is not None:
                self.refitter.due()
            if self.tables_played % PRUNE_EVERY == 0:
                self.prune()

        nursery.start_soon(played)

    async def claim(self) -> LadderTable | None:
        """The next deal set, claimed; None when too few versions may play, or the finals
        are over, or the finals' deal sets in flight are all they need (``phases``: the
        finals start and end here)."""
        if not finals_turn(self.contest.config, self.store, self.games,
                           [v.id for v in self.playing()], self.contest.clock()):
            return None
        if self._finals_covered():
            return None
        return await self.next_table()

    def _finals_covered(self) -> bool:
        """In the finals: whether every finalist still playing has its deal sets once the
        finals' tables in flight end (then wait for them, claim no more)."""
        finals = finals_of(self.store)
        if finals is None:
            return False
        settled = [g for g in self.games() if g.meeting_index not in self.in_flight]
        played = Counter(deal_sets_played(finals, settled))
        for table in self.in_flight.values():
            if table.id > finals.after_table:
                played.update(table.versions)
        left = [v.id for v in self.playing() if v.id in finals.finalists]
        return all(played[v] >= finals.deal_sets for v in left)

    def prune(self) -> None:
        """Old versions' files beyond ``[versions] keep`` (``prune``); a version at a table
        in flight is never pruned (its table is claimed, so ``prune`` keeps its files)."""
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

    def _new_games(self) -> list[ScoredGame]:
        """The games recorded since the last call that count now, counted in ``_counts``
        (game ids grow in commit order, so none appears later below one read)."""
        new = scored_games(self.store, after=self._read_up_to)
        if new:
            self._read_up_to = new[-1].game_index
        counted = finals_games(finals_of(self.store), new)
        self._counts.update(int(seat) for game in counted for seat in game.seats)
        return counted

    async def next_table(self) -> LadderTable | None:
        """The matchmaker's next deal set, claimed; None when it has none to give. Each
        version's games are those that count now (the finals' alone in the finals) plus the
        seatings still to play at the tables in flight."""
        finals = finals_of(self.store)
        started = None if finals is None else finals.started_at
        if started != self._finals_at:  # ratings reset: the matchmaker's estimates too
            self.matchmaker, self._finals_at = self._new_matchmaker(), started
            self._read_up_to, self._counts = 0, Counter()
        games = self._new_games()
        counts = self._counts.copy()
        for table in self.in_flight.values():
            counts.update(dict.fromkeys(table.versions, len(table.missing)))
        candidates = [Candidate(str(v.id), v.state_at, counts[v.id]) for v in self.playing()]
        # Off the event loop, as the board's refits are: the decision refits the matchmaker's
        # estimate, O(versions³) (72 ms of CPU at 100 versions, docs/benchmarks.md), and the
        # pages and streams must not wait on it. Only this loop claims, so the matchmaker is
        # never used by two threads at once.
        chosen = await trio.to_thread.run_sync(functools.partial(
            self.matchmaker.next_tables, candidates, games, now=self.contest.clock(), count=1))
        if not chosen:
            return None
        return claim_table(self.store, [int(v) for v in chosen[0].versions], chosen[0].reason,
                           self.contest.clock())

    async def play(self, table: LadderTable, player: TablePlayer) -> list[Version] | None:
        """Play the table's missing seatings on ``player`` (each game recorded as it ends),
        replaying them on a new worker if the worker dies; then end the table and judge its
        versions' faults. Its versions, or None when a version is gone (the table void)."""
        versions = [self.store.version(v) for v in table.versions]
        known = [v for v in versions if v is not None]
        if len(known) != len(versions):
            finish_table(self.store, table.id, self.contest.clock(), void="a version is gone")
            return None
        void: str | None = None
        died = ""
        try:
            for deaths in range(WORKER_DEATHS + 1):
                if not table.missing:  # a dead worker recorded the last one
                    break
                if deaths == WORKER_DEATHS:
                    void = f"its worker process died {deaths} times; the last: {died}"
                    break
                try:
                    void = await player.play(self._order(table, known), self.live)
                    break
                except WorkerGone as exc:
                    died = str(exc)
                    log.warning("%s; table %d keeps its recorded games, its missing seatings "
                                "go to a new worker (%d deaths void it)", exc, table.id,
                                WORKER_DEATHS)
                    self.live.end_all(f"{table.id}-")
                    await player.restart()
                    table = next((t for t in open_tables(self.store) if t.id == table.id),
                                 table)
                    self.in_flight[table.id] = table
        finally:
            self.live.end_all(f"{table.id}-")
        if void is None:
            finish_table(self.store, table.id, self.contest.clock())
        else:
            self._void(table, known, void)
        self.tables_played += 1
        self.judge_faults(known)
        return known

    def _order(self, table: LadderTable, versions: Sequence[Version]) -> TableOrder:
        """What a player needs to play ``table``'s missing seatings."""
        owners = {c.id: c.name for c in self.store.contestants()}
        return TableOrder(
            table_id=table.id,
            entrants=tuple(Entrant(f"v{v.id}", self.contest.bot_dir(v), v.command)
                           for v in versions),
            versions=tuple(v.id for v in versions),
            names=tuple(f"{owners.get(v.contestant_id, '?')} v{v.number}" for v in versions),
            key=table_key(self.key, table.id), seatings=tuple(table.missing),
            log_dir=self.contest.logs("tables", str(table.id)))

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
        """Refit the board now from the games recorded since the last refit (``refit``: the
        published board, each version's history and the verdicts against predecessors), after
        the refit running, if any."""
        await self.refitter.refit()
