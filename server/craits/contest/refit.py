"""The board's refit over a contest of weeks: games read once, kept as deal-set records, refitted
at most every ``[ladder] refit_s`` seconds.

Reading every recorded game from SQLite and fitting them all after every table grows without
bound: with 50 versions, a day's 100,000 games (at 4,000 an hour) took 65 s of CPU a refit
(``docs/benchmarks.md``). Two things keep a refit's cost in check here.

**What is kept (``GameCache``).** The board's fit reads of the games only each deal set's
pairwise records (``craits.ratings.intervals.deal_set_units``: per table, per two versions, the
summed pairwise score and weight) and each version's games and deal sets; a verdict reads the
same records of two versions (their scores unweighted, ``units_head_to_head``). So the cache
reads only the games recorded since its last read (by id, ``ladderstore.games_after``) and keeps
a table's records, not its games: a table being played in a dict, and once the store says it
is finished, in flat ``array`` columns (about 58 bytes a game, ``docs/benchmarks.md``). The
records are summed game by game in the order of the games' ids, exactly as ``deal_set_units``
sums them, and handed to the fit in table order: the fit gets the very numbers it would get
from the games themselves, so the board is the one a full refit makes, bit for bit
(``tests/contest/test_refit.py``). In the finals only the finals' tables count (``phases``), a
filter on the table id.

**When to refit (``Refitter``).** At most every ``refit_s`` seconds, and never before as long
again as the last refit took (so refits keep at most half a core busy even when the games
outgrow ``refit_s``), with the tables that ended meanwhile folded into it; at once when the
playing versions or the phase change (a new version joins, one is suspended, the finals start).
One task runs them, one after another, the fit in a worker thread as before (the API keeps
answering). A refit that finds no new game and no such change publishes nothing. Whoever wants
the board current at once (the ladder in the finals, before it may declare them done) asks
``behind`` first, which reads no game: a done or idle contest does not refit at all.

What stays O(games) per refit: the sandwich interval's sum over deal sets (each deal set's
pull at the current ratings: it moves with every refit), and the passes over the deal sets'
records that sum them for the fit and look for a spread of zero; about 2 µs a game in all
(0.22 s at 100,000 games). The Newton fit itself reads per-pair sums, O(versions²) an
iteration: warm-starting it from the last ratings would save about 6 of its 13 ms at 100,000
games and change the board's last bits, so it starts from zero as the full fit does.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
from array import array
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, NoReturn, Protocol, TypeVar, TypeVarTuple

import trio

from craits.ratings.bradley_terry import PairEntry
from craits.ratings.intervals import HeadToHead, unit_ratings, units_head_to_head
from craits.ratings.results import pair_score

from .board import rows_of
from .config import ContestConfig
from .ladderstore import finished_among, games_after, publish_board
from .phases import Finals, finals_of
from .store import Contestant, ContestStore, Version
from .verdicts import CONFIDENCE, predecessors, record_refit, verdict_of

READ_BATCH: Final = 10_000
"""Games read per query: a first read of a long contest holds one batch of rows at a time."""

T = TypeVar("T")
Ts = TypeVarTuple("Ts")


class Offload(Protocol):
    """How a refit runs its work away from the event loop: ``trio.to_thread.run_sync``, or in
    tests the call itself (a virtual clock cannot wait for a real thread)."""

    async def __call__(self, fn: Callable[[*Ts], T], /, *args: *Ts) -> T: ...


Pair = tuple[int, int]
"""Two versions, the one whose id sorts first *as text* first: the order of their indices in
the fit's bots (``board``: version ids as text, sorted), so a record never needs turning."""


@dataclass(slots=True)
class _Playing:
    """A table still being played: its records so far, in the order ``deal_set_units`` makes
    them (first appearance in the table's games, by game id)."""

    pairs: dict[Pair, list[float]] = field(default_factory=dict)
    """Per pair: weighted score, weight, twice the unweighted score, games."""
    played: dict[int, int] = field(default_factory=dict)
    """Per version: games at this table."""

    def add(self, seats: Sequence[int], places: Sequence[int]) -> None:
        """One game: each two seats' pairwise score, weighted 1/(N−1) (``pair_entries``)."""
        weight = 1.0 / (len(seats) - 1)
        text = [str(s) for s in seats]
        for x, a in enumerate(seats):
            self.played[a] = self.played.get(a, 0) + 1
            for y in range(x + 1, len(seats)):
                b, score = seats[y], pair_score(places[x], places[y])
                key = (a, b)
                if text[x] > text[y]:
                    key, score = (b, a), 1.0 - score
                acc = self.pairs.setdefault(key, [0.0, 0.0, 0, 0])
                acc[0] += score * weight
                acc[1] += weight
                acc[2] += round(2 * score)
                acc[3] += 1


class GameCache:
    """What the board and the verdicts read of the recorded games, read once (module doc)."""

    def __init__(self) -> None:
        self.last_game = 0
        """The id of the last game read."""
        self.games = 0
        self._playing: dict[int, _Playing] = {}
        # Finished tables, one row each: id, and where its records and seats start; and the
        # rows in table order.
        self._table = array("i")
        self._order = array("i")
        self._first_pair = array("i", [0])
        self._first_seat = array("i", [0])
        # Their records: the pair, the weighted score and weight (the fit's), twice the
        # unweighted score and the games (a verdict's).
        self._a = array("i")
        self._b = array("i")
        self._score = array("d")
        self._weight = array("d")
        self._half = array("i")
        self._count = array("i")
        self._record_table = array("i")
        self._by_pair: dict[Pair, array[int]] = {}
        # Their seats: the version and its games at that table.
        self._seat = array("i")
        self._played = array("i")
        self._totals: dict[int, list[int]] = {}
        """Per version: games and tables over all the finished tables."""

    def read(self, store: ContestStore) -> int:
        """Add the games recorded since the last read; the number added. A batch at a time,
        each followed by moving the tables finished with it into the columns (so a first read
        of a long contest holds a batch's tables in dicts, not all of them)."""
        added = 0
        while True:
            rows = games_after(store, self.last_game, READ_BATCH)
            for gid, table_id, seats, places in rows:
                self._playing.setdefault(table_id, _Playing()).add(seats, places)
                self.last_game = gid
            added += len(rows)
            for table_id in sorted(finished_among(store, list(self._playing), self.last_game)):
                self._keep(table_id, self._playing.pop(table_id))
            if len(rows) < READ_BATCH:
                break
        self.games += added
        return added

    def _keep(self, table_id: int, table: _Playing) -> None:
        """Move a finished table's records into the columns (in the order tables finish; its
        place in table order goes into the index)."""
        self._table.append(table_id)
        bisect.insort(self._order, len(self._table) - 1, key=self._table.__getitem__)
        for (a, b), (score, weight, half, count) in table.pairs.items():
            self._by_pair.setdefault((a, b), array("i")).append(len(self._a))
            self._a.append(a)
            self._b.append(b)
            self._score.append(score)
            self._weight.append(weight)
            self._half.append(int(half))
            self._count.append(int(count))
            self._record_table.append(table_id)
        for version, games in table.played.items():
            self._seat.append(version)
            self._played.append(games)
            total = self._totals.setdefault(version, [0, 0])
            total[0] += games
            total[1] += 1
        self._first_pair.append(len(self._a))
        self._first_seat.append(len(self._seat))

    def bytes(self) -> int:
        """Memory of the finished tables' columns (the bulk of what is kept), in bytes."""
        columns: tuple[array[Any], ...] = (
            self._table, self._order, self._first_pair, self._first_seat, self._a, self._b,
            self._score, self._weight, self._half, self._count, self._record_table, self._seat,
            self._played, *self._by_pair.values())
        return sum(c.itemsize * len(c) for c in columns)

    def _tables(self, after: int) -> tuple[int, Iterator[tuple[int, int]]]:
        """How many tables come after table ``after``, and (table id, its row, or -1 while
        played) of each, in table order: the finished ones by their index, merged with the
        few being played (no list of every table per refit)."""
        start = bisect.bisect_right(self._order, after, key=self._table.__getitem__)
        playing = sorted((t, -1) for t in self._playing if t > after)
        finished = ((self._table[row], row) for row in itertools.islice(self._order, start,
                                                                        None))
        return len(self._order) - start + len(playing), heapq.merge(finished, playing)

    def standing(self, after: int = 0) -> tuple[dict[str, int], dict[str, int]]:
        """Each version's games and deal sets at the tables after table ``after``, by version
        id as text (the fit's bots): from the running totals of the finished tables, or in the
        finals (``after`` > 0) counted from their rows."""
        played: dict[str, int] = {}
        sets: dict[str, int] = {}

        def count(version: int, games: int, tables: int = 1) -> None:
            key = str(version)
            played[key] = played.get(key, 0) + games
            sets[key] = sets.get(key, 0) + tables

        if after <= 0:
            for version, (games, tables) in self._totals.items():
                count(version, games, tables)
        for table_id, row in self._tables(after)[1] if after > 0 else (
                (t, -1) for t in self._playing):
            if row < 0:
                for version, games in self._playing[table_id].played.items():
                    count(version, games)
            else:
                for k in range(self._first_seat[row], self._first_seat[row + 1]):
                    count(self._seat[k], self._played[k])
        return played, sets

    def units(self, bots: Sequence[str], after: int = 0) -> Collection[Sequence[PairEntry]]:
        """The deal sets' records after table ``after``, by index in ``bots`` (sorted version
        ids as text), as ``deal_set_units`` gives them for the same games."""
        return _Units(self, after, {int(b): i for i, b in enumerate(bots)})

    def head_to_head(self, a: int, b: int, after: int = 0) -> HeadToHead:
        """Version ``a`` against version ``b`` at the tables after ``after``, as
        ``head_to_head`` over the same games."""
        flip = str(a) > str(b)
        key = (b, a) if flip else (a, b)
        found: list[tuple[int, float, float]] = []  # table, the first's score, games
        for k in self._by_pair.get(key, ()):
            if self._record_table[k] > after:
                found.append((self._record_table[k], self._half[k] / 2, self._count[k]))
        for table_id, table in self._playing.items():
            acc = table.pairs.get(key)
            if acc is not None and table_id > after:
                found.append((table_id, acc[2] / 2, acc[3]))
        found.sort()
        units = [[(0, 1, games - first if flip else first, float(games))]
                 for _, first, games in found]
        return units_head_to_head(units, str(a), str(b), CONFIDENCE)


class _Units(Collection[Sequence[PairEntry]]):
    """A lazy view of the cache's deal sets as ``unit_ratings`` reads them: built a deal set at
    a time on each pass, so a refit holds no second copy of the records."""

    def __init__(self, cache: GameCache, after: int, index: dict[int, int]) -> None:
        self._cache, self._after, self._index = cache, after, index
        self._count = cache._tables(after)[0]

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[Sequence[PairEntry]]:
        cache, index = self._cache, self._index
        a, b, score, weight = cache._a, cache._b, cache._score, cache._weight
        first = cache._first_pair
        for table_id, row in cache._tables(self._after)[1]:
            if row < 0:
                yield [(index[x], index[y], acc[0], acc[1])
                       for (x, y), acc in cache._playing[table_id].pairs.items()]
            else:
                yield [(index[a[k]], index[b[k]], score[k], weight[k])
                       for k in range(first[row], first[row + 1])]

    def __contains__(self, unit: object) -> bool:
        return any(unit == u for u in self)


def refit_rows(cache: GameCache, finals: Finals | None, playing: Sequence[Version],
               contestants: Sequence[Contestant], provisional: int) -> list[dict[str, Any]]:
    """The board's rows from the cache: ``board.board_rows`` of the games that count."""
    if not playing:
        return []
    after = 0 if finals is None else finals.after_table
    played, sets = cache.standing(after)
    bots = sorted(set(played) | {str(v.id) for v in playing})
    fit = unit_ratings(cache.units(bots, after), bots, superiority=False)
    return rows_of(fit, played, sets, playing, contestants, provisional)


def refit_verdicts(cache: GameCache, finals: Finals | None, rows: Sequence[dict[str, Any]],
                   before: dict[int, tuple[int, int]]) -> dict[int, dict[str, Any]]:
    """The verdicts from the cache: ``verdicts.judge`` of the games that count."""
    after = 0 if finals is None else finals.after_table
    listed = {int(r["version_id"]) for r in rows}
    return {v: verdict_of(cache.head_to_head(v, p, after), p, n)
            for v, (p, n) in before.items() if v in listed}


class Refitter:
    """Refits the board as games arrive, throttled (module doc): ``due`` after each table,
    ``run`` in the ladder's nursery."""

    def __init__(self, store: ContestStore, config: ContestConfig,
                 playing: Callable[[], list[Version]], now: Callable[[], float],
                 offload: Offload = trio.to_thread.run_sync) -> None:
        self.store = store
        self.offload = offload
        self.config = config
        self.playing = playing
        """The versions listed on the board now (the ladder's ``playing``)."""
        self.now = now
        """The contest's clock, for the times kept with the board and the history."""
        self.interval = config.ladder.refit_s
        self.cache = GameCache()
        self.refits = 0
        self._fitted: tuple[Finals | None, tuple[int, ...]] | None = None
        self._ended = False
        """A table ended (``due``) since the last refit began to read the games."""
        self._wanted = trio.Event()
        self._forced = trio.Event()
        self._last = -float("inf")
        self._took = 0.0
        self._one_at_a_time = trio.Lock()

    def _key(self, playing: Sequence[Version]) -> tuple[Finals | None, tuple[int, ...]]:
        """What refits at once when it changes: the phase (the finals) and the playing
        versions."""
        return (finals_of(self.store), tuple(v.id for v in playing))

    def due(self, force: bool = False) -> None:
        """A table ended (games to fold in): a refit is wanted, at once if ``force`` or the
        playing versions or the phase changed since the last one, else when the interval
        allows."""
        self._ended = True
        self._wanted.set()
        if force or self._key(self.playing()) != self._fitted:
            self._forced.set()

    def behind(self) -> bool:
        """Whether the published board may be behind the store: a table ended since the last
        refit began, or the phase or the playing versions changed since it (a few rows read,
        no game)."""
        return self._ended or self._key(self.playing()) != self._fitted

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                  ) -> NoReturn:
        """Refit whenever wanted, at most every ``refit_s`` (and never sooner after a refit
        than it took) unless forced; never two at once (cancel to stop)."""
        task_status.started()
        while True:
            await self._wanted.wait()
            with trio.move_on_at(self._last + max(self.interval, self._took)):
                await self._forced.wait()
            self._wanted, self._forced = trio.Event(), trio.Event()
            self._last = trio.current_time()
            await self.refit()
            self._took = trio.current_time() - self._last

    async def refit(self) -> bool:
        """One refit now (after the one running, if any): read the new games, fit and publish
        the board, keep the history and the verdicts; False (nothing published) when no game
        came and nothing changed."""
        async with self._one_at_a_time:
            return await self._refit()

    async def _refit(self) -> bool:
        self._ended = False  # a table that ends from now on is read by the next refit
        playing = self.playing()
        key = self._key(playing)
        finals = key[0]
        added = await self.offload(self.cache.read, self.store)
        if not added and key == self._fitted:
            return False
        contestants = self.store.contestants()
        rows = await self.offload(refit_rows, self.cache, finals, playing,
                                             contestants, self.config.ladder.provisional)
        publish_board(self.store, rows, self.now())
        before = predecessors(self.store, [int(r["version_id"]) for r in rows])
        verdicts = await self.offload(refit_verdicts, self.cache, finals, rows,
                                                 before)
        record_refit(self.store, rows, verdicts, self.now())
        self._fitted = key
        self.refits += 1
        return True
