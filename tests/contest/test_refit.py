"""The board's refit from the game cache (``contest.refit``): the same board, history and
verdicts as a full refit of every game, on a real store whose tables end out of order and
whose finals reset the ratings; and the refit's schedule (at most every ``refit_s``, tables
folded in, at once on a change, never two at once) on trio's virtual clock."""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, TypeVarTuple

import pytest
import trio
import trio.testing

from craits.contest.board import board_rows
from craits.contest.config import ContestConfig, LadderSettings, Phases
from craits.contest.ladderstore import (
    LadderTable,
    claim_table,
    finish_table,
    publish_board,
    record_game,
    scored_games,
)
from craits.contest.phases import finals_games, finals_of, start_finals
from craits.contest.refit import GameCache, Refitter, refit_rows, refit_verdicts
from craits.contest.store import ContestStore, NewVersion, Version
from craits.contest.verdicts import judge, predecessors
from craits.contest.versions import VersionState
from craits.ratings.intervals import clustered_ratings, unit_ratings
from craits.ratings.standings import compute_standings
from craits.tournament.store.game_records import FinishedGame

T = TypeVar("T")
Ts = TypeVarTuple("Ts")


def _version(store: ContestStore, contestant: int, tag: str) -> Version:
    digest = hashlib.sha256(tag.encode()).hexdigest()
    version, _ = store.record_upload(contestant, NewVersion(digest, "bot.py", "python bot.py",
                                                           "python", 1, 10), 0.0)
    return store.set_state(version.id, VersionState.RATED, 0.0)


def _field(store: ContestStore) -> dict[int, float]:
    """Four contestants; the first with three versions (its first no longer playing: two
    play), the second's newer version far stronger (it wins every game against the older: a
    one-sided verdict). Returns each version's strength."""
    strength: dict[int, float] = {}
    for c, name in enumerate(("ann", "bob", "cid", "dee")):
        contestant = store.add_contestant(name, f"digest-{name}", 0.0)
        for number in range(3 if c == 0 else 2):
            version = _version(store, contestant.id, f"{name}{number}")
            strength[version.id] = 0.4 * c + 0.3 * number + (20.0 if (c, number) == (1, 1)
                                                             else 0.0)
    return strength


def _playing(store: ContestStore) -> list[Version]:
    """The board's versions, as the ladder lists them: the finalists in the finals."""
    finals = finals_of(store)
    if finals is not None:
        return [v for v in map(store.version, finals.finalists) if v is not None]
    return [v for c in store.contestants() for v in store.playing_versions(c.id, 2)]


class Tables:
    """Deal sets recorded as the ladder records them (``claim_table``, ``record_game`` per
    seating, ``finish_table``), several at once with their games interleaved and finished
    out of order, as tables played in parallel end."""

    def __init__(self, store: ContestStore, strength: dict[int, float], seed: int) -> None:
        self.store, self.strength, self.rng = store, strength, random.Random(seed)
        self.unfinished: LadderTable | None = None

    def play(self, count: int, among: list[int], leave_open: bool = False) -> None:
        """``count`` tables of 2 to 4 of ``among``, three at a time; the last left unfinished
        with some seatings recorded when ``leave_open`` (the next call ends it first)."""
        if self.unfinished is not None:
            table, self.unfinished = self.unfinished, None
            self._game(table.id, len(table.versions) - 1, table.versions)
            finish_table(self.store, table.id, 0.0)
        for start in range(0, count, 3):
            batch = [claim_table(self.store, self.rng.sample(among, self.rng.randint(
                2, min(4, len(among)))), "test", 0.0) for _ in range(min(3, count - start))]
            seatings = [(t, r) for t in batch for r in range(len(t.versions))]
            self.rng.shuffle(seatings)
            seatings.sort(key=lambda s: s[1])  # each table's seatings in order, tables mixed
            last = leave_open and start + 3 >= count
            for table, rotation in seatings:
                if last and table is batch[-1] and rotation == len(table.versions) - 1:
                    continue
                self._game(table.id, rotation, table.versions)
            for table in self.rng.sample(batch, len(batch)):
                if not (last and table is batch[-1]):
                    finish_table(self.store, table.id, 0.0)
            if last:
                self.unfinished = batch[-1]

    def _game(self, table_id: int, rotation: int, versions: tuple[int, ...]) -> None:
        seats = list(versions[rotation:] + versions[:rotation])
        score = {v: self.strength[v] + self.rng.gauss(0, 1) for v in seats}
        ranked = sorted({round(s, 1) for s in score.values()}, reverse=True)
        places = tuple(ranked.index(round(score[v], 1)) + 1 for v in seats)
        n = len(seats)
        assert record_game(self.store, table_id, rotation, seats, FinishedGame(
            "contest", 0, places, places, (0,) * n, (False,) * n, 0.0, 0.0), "g", 0.0)


def _same_as_a_full_refit(store: ContestStore, cache: GameCache) -> list[dict[str, Any]]:
    """Read what is new, refit from the cache and from every game, and check they agree:
    the fit itself bit for bit, the board's rows and the verdicts exactly."""
    cache.read(store)
    finals = finals_of(store)
    games = finals_games(finals, scored_games(store))
    playing = _playing(store)
    contestants = store.contestants()
    rows = refit_rows(cache, finals, playing, contestants, 4)
    assert rows == board_rows(games, playing, contestants, 4)
    bots = sorted({s for g in games for s in g.seats} | {str(v.id) for v in playing})
    after = 0 if finals is None else finals.after_table
    assert unit_ratings(cache.units(bots, after), bots) == clustered_ratings(
        sorted(games, key=lambda g: g.game_index), bots)
    before = predecessors(store, [int(r["version_id"]) for r in rows])
    assert refit_verdicts(cache, finals, rows, before) == judge(games, rows, before)
    return rows


@pytest.mark.slow
def test_the_cache_refits_the_board_and_verdicts_of_a_full_refit(tmp_path: Path) -> None:
    store = ContestStore.open(tmp_path / "contest.db")
    strength = _field(store)
    tables = Tables(store, strength, seed=3)
    everyone = list(strength)
    playing = [v.id for v in _playing(store)]
    assert set(everyone) - set(playing) == {everyone[0]}  # ann's first: games, not listed
    cache = GameCache()
    assert all(r["games"] == 0 for r in _same_as_a_full_refit(store, cache))  # none yet
    tables.play(30, everyone)
    _same_as_a_full_refit(store, cache)
    for _ in range(4):  # a read while a table is being played, then the rest of it
        tables.play(25, playing, leave_open=True)
        rows = _same_as_a_full_refit(store, cache)
        assert cache._playing  # the unfinished table counts from the dict
    tables.play(3, playing)
    rows = _same_as_a_full_refit(store, cache)
    assert not cache._playing  # every table finished: in the columns
    assert cache.games == len(scored_games(store)) and 0 < cache.bytes() < 100 * cache.games
    assert _same_as_a_full_refit(store, cache) == rows
    established = [r for r in rows if not r["provisional"]]
    assert len(established) >= 6 and all(r["low"] < r["rating"] < r["high"]
                                          for r in established if r["low"] is not None)

    before = predecessors(store, [int(r["version_id"]) for r in rows])
    verdicts = refit_verdicts(cache, None, rows, before)
    bob = next(v for v in _playing(store) if strength[v.id] > 10).id
    assert verdicts[bob]["low"] is not None and verdicts[bob]["high"] is None  # one-sided
    two_sided = [v for v in verdicts.values() if v["low"] is not None and v["high"] is not None]
    assert two_sided and all(0.0 < v["los"] < 1.0 for v in two_sided)

    publish_board(store, rows, 0.0)  # the finals: the board's top 4, only later tables count
    finals = start_finals(ContestConfig(name="cup", phases=Phases(finalists=4)), store, 1.0)
    assert finals_of(store) == finals
    finalists = list(finals.finalists)
    assert _same_as_a_full_refit(store, cache)[0]["games"] == 0
    tables.play(12, finalists, leave_open=True)
    rows = _same_as_a_full_refit(store, cache)
    assert {r["version_id"] for r in rows} == set(finalists) and cache._playing
    seated = sum(len(g.seats) for g in finals_games(finals, scored_games(store)))
    assert sum(r["games"] for r in rows) == seated < cache.games
    store.close()


def test_board_rows_are_the_standings_rows(tmp_path: Path) -> None:
    """The board's own full fit (the reference above) lists what ``compute_standings``, the
    tournaments' table, says of each playing version."""
    store = ContestStore.open(tmp_path / "contest.db")
    strength = _field(store)
    Tables(store, strength, seed=5).play(24, list(strength))
    games, playing = scored_games(store), _playing(store)
    assert scored_games(store, after=games[5].game_index) == games[6:]  # what a reader lacks
    rows = board_rows(games, playing, store.contestants(), 4)
    bots = sorted({s for g in games for s in g.seats} | {str(v.id) for v in playing})
    standings = {r.bot: r for r in compute_standings(games, bots).rows}
    assert len(rows) == len(playing) == 8
    for row in rows:
        line = standings[str(row["version_id"])]
        assert row["rating"] == round(line.rating, 1) and row["games"] == line.stats.games
        assert row["low"] == (None if line.low is None else round(line.low, 1))
        assert row["high"] == (None if line.high is None else round(line.high, 1))
    store.close()


async def _inline(fn: Callable[[*Ts], T], /, *args: *Ts) -> T:
    """Runs the refit's work in the calling task: on a virtual clock nothing waits for a
    real thread."""
    return fn(*args)


class TimedRefitter(Refitter):
    """A refitter whose refits take ``takes`` virtual seconds, noting when each ran."""

    def __init__(self, store: ContestStore, versions: list[Version], interval: float) -> None:
        super().__init__(store, ContestConfig(name="cup", ladder=LadderSettings(
            refit_s=interval)), lambda: list(versions), time.time, _inline)
        self.takes = 1.0
        self.spans: list[tuple[float, float, int]] = []

    async def _refit(self) -> bool:
        start = trio.current_time()
        done = await super()._refit()
        await trio.sleep(self.takes)
        self.spans.append((start, trio.current_time(), self.cache.games))
        return done


def test_refits_wait_for_the_interval_fold_tables_in_and_run_one_at_a_time(
        tmp_path: Path) -> None:
    store = ContestStore.open(tmp_path / "contest.db")
    strength = _field(store)
    versions = _playing(store)
    tables = Tables(store, strength, seed=7)
    ids = [v.id for v in versions]
    refitter = TimedRefitter(store, versions, interval=5.0)

    async def ladder() -> None:
        async with trio.open_nursery() as nursery:
            await nursery.start(refitter.run)

            recorded: list[int] = []

            async def table_at(t: float, force: bool = False) -> None:
                await trio.sleep_until(t)
                tables.play(1, ids)
                recorded.append(len(scored_games(store)))
                refitter.due(force)

            await table_at(0.0)  # the first: at once (nothing fitted yet)
            for t in (2.0, 3.0, 4.0):  # folded into one at 5 (the interval since 0)
                await table_at(t)
            await table_at(5.5)  # during the refit at 5: folded into one at 10
            await trio.sleep_until(11.5)
            assert [s[:2] for s in refitter.spans] == [(0.0, 1.0), (5.0, 6.0), (10.0, 11.0)]
            assert [s[2] for s in refitter.spans] == [recorded[k] for k in (0, 3, 4)]

            versions.pop()  # a version stops playing: at once, whatever the interval
            await table_at(12.0)
            await table_at(13.5, force=True)  # forced: at once
            await trio.sleep_until(14.6)
            assert [s[0] for s in refitter.spans[3:]] == [12.0, 13.5]

            refitter.takes = 8.0  # a refit longer than the interval: as long again between
            await table_at(20.0, force=True)
            await table_at(21.0)
            # a direct refit meanwhile waits for the running one: never two at once
            nursery.start_soon(refitter.refit)
            await trio.sleep_until(60.0)
            starts = [s[0] for s in refitter.spans[5:]]
            assert starts == [20.0, 28.0, 36.0]
            spans = refitter.spans
            assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans))
            nursery.cancel_scope.cancel()

    trio.run(ladder, clock=trio.testing.MockClock(autojump_threshold=0))
    store.close()


def test_a_refit_with_nothing_new_publishes_nothing(tmp_path: Path) -> None:
    store = ContestStore.open(tmp_path / "contest.db")
    strength = _field(store)
    versions = _playing(store)
    Tables(store, strength, seed=9).play(6, [v.id for v in versions])
    refitter = Refitter(store, ContestConfig(name="cup"), lambda: versions, lambda: 100.0,
                        _inline)
    assert trio.run(refitter.refit)
    board = store.read("SELECT at, rows FROM board")
    assert json.loads(board[0][1]) == store.standings() and len(store.standings()) == 8
    refitter.now = lambda: 200.0
    assert not trio.run(refitter.refit)  # no game, same versions: the board is left as is
    assert store.read("SELECT at FROM board")[0][0] == 100.0
    Tables(store, strength, seed=10).play(1, [v.id for v in versions])
    assert trio.run(refitter.refit) and store.read("SELECT at FROM board")[0][0] == 200.0
    assert refitter.refits == 2
    store.close()


def test_behind_until_a_table_ends_or_the_versions_change(tmp_path: Path) -> None:
    """What the ladder asks before refitting at once: a refit's reads only when something
    changed (a table ended, a version left), never for an unchanged store."""
    store = ContestStore.open(tmp_path / "contest.db")
    strength = _field(store)
    versions = _playing(store)
    tables = Tables(store, strength, seed=11)
    tables.play(3, [v.id for v in versions])
    reads: list[str] = []

    async def counted(fn: Callable[[*Ts], T], /, *args: *Ts) -> T:
        reads.append(getattr(fn, "__name__", "?"))
        return fn(*args)

    refitter = Refitter(store, ContestConfig(name="cup"), lambda: list(versions), time.time,
                        counted)
    assert refitter.behind()  # nothing fitted yet
    assert trio.run(refitter.refit) and reads.count("read") == 1
    assert not refitter.behind()
    tables.play(1, [v.id for v in versions])
    assert not refitter.behind()  # no table said it ended: a refit would not be asked for
    refitter.due()
    assert refitter.behind()
    assert trio.run(refitter.refit) and not refitter.behind()
    versions.pop()  # a version stops playing
    assert refitter.behind()
    assert trio.run(refitter.refit) and not refitter.behind()
    assert reads.count("read") == 3 and refitter.refits == 3
    store.close()
