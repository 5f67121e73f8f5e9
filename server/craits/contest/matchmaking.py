"""The contest's matchmaker: which versions play the next deal set, chosen for information.

A contest never ends and its field changes under it, so a round robin cannot serve it (50 bots
at tables of 4 are 230,300 meetings) and uniformly random tables waste most of what they play: a
game between bots 600 Elo apart tells the board almost nothing it did not know. What the board
needs is the order of the versions, above all at the top, and a new version placed in it soon.
So each table is chosen where the order is still in doubt:

* **the unit** is one deal set of one table: a deal played once per cyclic seating of its
  versions (``docs/ratings.md``: the deal set is the independent unit, and the only fair one);
* **who the table is for** (the seed), in this order: a new version (fewer than
  ``new_games`` games scheduled or played: its first games within one decision of joining;
  the one with fewest, then the oldest, first),
  then a version starved below the band, then the version with the most doubt left in its
  order against the others (below);
* **who sits with it**: one at a time, the version whose order against those already seated is
  most in doubt, discounted by how often the two have met (fewest head-to-heads first); with
  probability ``explore`` a seat is drawn instead from a random *rating window* (the field
  sorted by rating, cut into windows of a table each), so every version meets every part of
  the field, the leader's window included, whatever the estimates say (Halite's nearest-k
  opponents made the leader unreachable, its issue #207);
* **the band**: over the last ``window`` seconds, no version takes more than ``band[1]`` times
  its fair share of the games scheduled (fair: an equal share of the time each was in the
  contest), and one below ``band[0]`` is seeded before information is consulted. Information
  alone would play the leaders all day; the band is what the platforms' users ask for (even
  rates, no starvation) and what keeps the bottom of the board honest.

*Doubt* is the probability that a pair's estimated order is wrong, Φ(−|μ_i − μ_j| / √(σ_i² +
σ_j²)), from the Bradley–Terry fit of the playing versions' games (``estimate``: the board's
model, with each version's variance around the field's mean, calibrated so that the doubts sum
to about the discordant pairs the estimate holds). The sum of doubt over the pairs is the
expected number of discordant pairs, which is what Kendall's tau counts; pairs that may decide
the top ``top`` places weigh ``1 + top_weight`` times more, since the exact top of the board is
what contestants look at, but only once the whole order is expected to be nearly right
(``top_after_tau``): the top's order rests on everyone's, and weighed from the first table it
took the early tables from the whole order, which is decided early. The fit costs O(versions³)
a decision that follows new games (``benchmarks/matchmaking_bench.py`` measures it beside the
published board's refit, which adds intervals and grows with deal sets too): the published
board stays ``craits.ratings``' with its intervals, the estimate only chooses tables.

Pure and deterministic: no clock (``now`` is passed in, in seconds), no I/O, randomness only
from the seeded RNG, ties broken by version id. The same seed, versions, games and calls give
the same tables.
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from craits.ratings.elo import ELO_PER_NAT
from craits.ratings.results import ScoredGame

from .estimate import FieldEstimate, Skill

BETA: Final = ELO_PER_NAT / math.sqrt(2.0)
"""Performance spread of one game, Elo scale: two versions with exact ratings beat each other
with the Bradley–Terry odds of their Elo difference (c = √2 β is one nat). What ``settled``
counts a deal set's information in."""


@dataclass(frozen=True, slots=True)
class Version:
    """A version that may play: what the matchmaker is told of it."""

    id: str
    joined: float
    """When it became playable, contest clock in seconds (the same clock as ``now``)."""
    games: int = 0
    """Games it has finished so far (the store's count; a restarted matchmaker trusts it)."""


@dataclass(frozen=True, slots=True)
class Table:
    """One deal set to play: the versions of one table (seat order of the first seating) and
    why it was chosen (``new``, ``starving`` or ``information``), for logs and tests."""

    versions: tuple[str, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class MatchConfig:
    """The matchmaker's knobs, each with the reason for its default (module doc)."""

    table_sizes: tuple[int, ...] = (4,)
    """Table sizes the contest plays, 2 to 10; several are taken in turn (the biggest that
    the versions can fill when one cannot be)."""
    new_games: int = 8
    """A version with fewer games than this (two deal sets at tables of 4) is seeded first."""
    window: float = 3600.0
    """The band's window in seconds: games per version per hour."""
    band: tuple[float, float] = (0.5, 2.0)
    """Least and most of its fair share of games a version gets over the window."""
    top: int = 3
    """Places at the top of the board whose exact order counts extra."""
    top_weight: float = 6.0
    """How much more a pair that may decide the top places weighs (2, 4, 6 and 10 were tried
    in short runs of the benchmark: 2 found the top 3 later, 10 lost on the whole order; 3 over
    300 paired runs of a realistic field: 5% fewer games to its tau, 20% more to its top 3)."""
    explore: float = 0.1
    """Chance that a seat is drawn from a random rating window instead."""
    meetings_scale: float = 8.0
    """Deal sets together after which a pair's doubt counts half (fewest head-to-heads first;
    4, 8 and 16 were tried: 4 found the top 3 later, 16 the whole order; 8 sits between)."""
    resolve: float = 0.0
    """How much a pair's value follows what one more deal set would settle of it: its doubt
    times ``r ** resolve``, ``r`` the share of the pair's variance one deal set together
    removes (``settled``). 0: doubt alone. 0.5 is the slope of the expected fall of doubt of
    an even pair (one-step look-ahead: ``arcsin(√r)/π``): a near-tie already well measured
    then counts less than one of two versions little known. Off: over 80 paired runs of the
    benchmark, 0.5 took 1.32 times the games to the realistic field's tau and 1 1.54 times
    to its top 3 (``docs/benchmarks.md``); kept so that the screen can be run again."""

    top_ramp: float = 0.0
    """Games per version (the field's mean, played or scheduled) over which the top's weight
    grows from none to ``top_weight``, in proportion; 0: the full weight from the first table.
    While every place is in doubt, the tables that sort the whole field are the ones that
    settle most (the top's order rests on the others' too), and the exact top is what takes
    longest anyway, so it can wait for a sorted field. Off: over 400 paired runs of the
    benchmark, 48 took 0.94 of the defaults' games to the spaced field's tau (the top 3 as
    soon) and 1.10 times to the realistic field's tau and top 3 (``docs/benchmarks.md``); kept
    so that the screen can be run again."""

    top_after_tau: float = 0.9
    """The top's weight applies only once the estimate expects its order to hold Kendall's
    tau of at least this against the true order (1 − 2 Σ doubt / pairs: the expected
    discordant pairs as a share of all; 0.9 is 6 of 16 versions' 120 pairs); 0: always. Tau
    is decided early (random tables hold tau ≥ 0.9 after about 12 games a version in a spaced
    field) and the exact top late (about 45), and weighing the top while the whole order is
    still in doubt spends the early tables on a top that cannot be known yet: every pair alike
    until then, the top after. The threshold is read on the estimate's doubts, so it moves
    with how they are reckoned: 0.87 with the online Plackett–Luce estimate the matchmaker
    read before (which overstated them), 0.9 with the fit (``estimate``), whose doubts sum to
    about the discordant pairs it holds. Screened over 200 paired runs of the benchmark
    (``docs/benchmarks.md``): 0.87 took 0.74 of random tables' games to tau and 0.30 to the top
    3 with versions 40 Elo apart, 0.9 0.60 and 0.37, 0.92 (the realistic field only) 0.75 and
    0.56 against 0.9's 0.72 and 0.52. Over 1,000 runs, 0.9: 0.65 and 0.37 (spaced), 0.75 and
    0.48 (realistic)."""

    def __post_init__(self) -> None:
        if not self.table_sizes or any(not 2 <= k <= 10 for k in self.table_sizes):
            raise ValueError("table sizes must be between 2 and 10")
        low, high = self.band
        if not 0.0 <= low < 1.0 < high:
            raise ValueError("the band must hold the fair share: 0 <= low < 1 < high")
        if not 0.0 <= self.explore <= 1.0:
            raise ValueError("explore is a probability")
        if self.resolve < 0.0:
            raise ValueError("resolve is an exponent of at least 0")
        if self.top_ramp < 0.0:
            raise ValueError("top_ramp is a number of games, at least 0")
        if not -1.0 <= self.top_after_tau < 1.0:
            raise ValueError("top_after_tau is a Kendall tau below 1 (0: always)")


def settled(a: Skill, b: Skill, meetings: int) -> float:
    """The share of the variance of ``a``'s and ``b``'s difference that one more deal set of
    theirs would remove, reckoned on the scale of the online Plackett–Luce estimate the
    matchmaker read when ``resolve`` was screened (``docs/benchmarks.md``). That estimate put a
    version's strength at
    e^(μ/c), c² the table's summed σ² + β² (about k(β² + σ̄²) at a table of k), so a game
    ordering the two carries 1/(4c²) of information on μ_a − μ_b (an even pair's
    Bradley–Terry share), and the k games of a deal set k/(4c²): a deal set alone leaves
    4(β² + σ̄²), whatever the table's size. The pair's variance is σ_a² + σ_b², less what the
    ``meetings`` deal sets they played together told of it: the estimate counts those games
    already, but spread over every opponent (a version's σ says how well it is placed in the
    field, the meetings how well against this one)."""
    spread = a.var + b.var
    alone = 4.0 * BETA * BETA + 2.0 * spread
    pair = 1.0 / (1.0 / spread + meetings / alone)
    return pair / (pair + alone)


def doubt(a: Skill, b: Skill) -> float:
    """The probability that the estimated order of two versions is the wrong one."""
    spread = math.sqrt(a.var + b.var)
    return 0.5 * math.erfc(abs(a.mu - b.mu) / spread / math.sqrt(2.0))


class Matchmaker:
    """Chooses the next deal sets of a contest (module doc). Keep one per contest: it learns
    from the games it is shown and remembers the tables it scheduled."""

    def __init__(self, config: MatchConfig | None = None, seed: int = 0) -> None:
        self.config = config or MatchConfig()
        self.estimate = FieldEstimate()
        self._rng = random.Random(seed)
        self._learned_up_to = -1
        """The highest ``game_index`` learned: games come in index order (the ladder reads
        after its last id, and ids grow in commit order), so one number remembers them all
        where a set of every id seen grew by 33-67 bytes a game over a contest's weeks."""
        self._scheduled: dict[str, int] = {}
        """Games each version was scheduled for, all time: a table not yet finished counts."""
        self._meetings: dict[tuple[str, str], int] = {}
        self._ledger: deque[tuple[float, tuple[str, ...]]] = deque()
        self._decisions = 0

    def observe(self, games: Iterable[ScoredGame]) -> None:
        """Learn from the finished games above the last one learned (by ``game_index``), in
        index order, so that the estimate does not depend on how the games were batched. A
        game at or below that index counts as seen: callers give games in index order across
        calls (a batch may be in any order, and may repeat games already given)."""
        fresh = sorted((g for g in games if g.game_index > self._learned_up_to),
                       key=lambda g: g.game_index)
        for game in fresh:
            self.estimate.add(game)
        if fresh:
            self._learned_up_to = fresh[-1].game_index

    def next_tables(self, versions: Sequence[Version], games: Iterable[ScoredGame] = (),
                    now: float = 0.0, count: int = 1) -> list[Table]:
        """Learn from ``games``, then choose up to ``count`` deal sets among ``versions`` (the
        ones that may play now) at ``now``; fewer when too few versions may play."""
        self.observe(games)
        ids = sorted({v.id for v in versions})
        if len(ids) != len(versions):
            raise ValueError("versions must have distinct ids")
        tables = []
        for _ in range(count):
            table = self._choose(versions, now)
            if table is None:
                break
            tables.append(table)
        return tables

    def _choose(self, versions: Sequence[Version], now: float) -> Table | None:
        sizes = self.config.table_sizes
        size = sizes[self._decisions % len(sizes)]
        if size > len(versions):  # the biggest configured table the field can fill, if any
            size = max((k for k in sizes if k <= len(versions)), default=0)
            if not size:
                return None
        self._decisions += 1
        share, starving, flooded = self._band(versions, now)
        by_id = {v.id: v for v in versions}
        skills = self.estimate.fitted([v.id for v in versions])
        games = sum(max(v.games, self._scheduled.get(v.id, 0)) for v in versions)
        weight = self._top_weights(skills, games / len(versions))
        value = self._values(skills, weight)
        open_ = sorted(by_id, key=lambda v: (v in flooded, share[v], v))
        eligible = [v for v in open_ if v not in flooded]
        if len(eligible) < size:
            eligible = open_[:size]
        played = {v: max(by_id[v].games, self._scheduled.get(v, 0)) for v in eligible}
        fresh = [v for v in eligible if played[v] < self.config.new_games]
        if fresh:
            seed = min(fresh, key=lambda v: (played[v], by_id[v].joined, v))
            reason = "new"
        elif starving & set(eligible):
            seed = min(starving & set(eligible), key=lambda v: (share[v], v))
            reason = "starving"
        else:  # each version's sum over the others, each pair's value reckoned once
            order = list(by_id)
            need = dict.fromkeys(order, 0.0)
            for i, a in enumerate(order):
                for b in order[i + 1:]:
                    worth = value(a, b)
                    need[a] += worth
                    need[b] += worth
            seed = max(eligible, key=lambda v: (need[v], v))
            reason = "information"
        table = [seed]
        candidates = [v for v in eligible if v != seed]
        while len(table) < size:
            pick = self._explore(candidates, table, skills)
            if pick is None:
                pick = max(candidates, key=lambda v: (
                    sum(value(v, t) for t in table),
                    -self._scheduled.get(v, 0), v))
            table.append(pick)
            candidates.remove(pick)
        self._record(table, now)
        return Table(tuple(table), reason)

    def _values(self, skills: dict[str, Skill], weight: dict[str, float]
                ) -> Callable[[str, str], float]:
        """What one more deal set of two versions is worth: their doubt, weighted for the top
        places, halved every ``meetings_scale`` deal sets they already played together, times
        the share of the pair's variance the deal set would settle to the power ``resolve``.
        Remembered per pair for one decision (the seed's sums and the seats' read the same
        pairs, each from both ends): the decision's CPU is mostly these."""
        memo: dict[tuple[str, str], float] = {}
        scale = self.config.meetings_scale
        resolve = self.config.resolve

        def value(a: str, b: str) -> float:
            key = (a, b) if a < b else (b, a)
            worth = memo.get(key)
            if worth is None:
                met = self._meetings.get(key, 0)
                worth = (doubt(skills[a], skills[b]) * min(weight[a], weight[b])
                         / (1.0 + met / scale))
                if resolve:
                    worth *= settled(skills[a], skills[b], met) ** resolve
                memo[key] = worth
            return worth
        return value

    def _top_weights(self, skills: dict[str, Skill], games: float) -> dict[str, float]:
        """``1 + w · P(in the top places or next to them)`` per version, ``w`` the
        ``top_weight`` as far as the field's mean ``games`` per version have come along
        ``top_ramp``: a pair's order decides the exact top only if both may be there."""
        cfg = self.config
        w = cfg.top_weight * (min(1.0, games / cfg.top_ramp) if cfg.top_ramp else 1.0)
        if cfg.top_after_tau and expected_tau(list(skills.values())) < cfg.top_after_tau:
            w = 0.0
        ranked = sorted(skills.values(), key=lambda s: -s.mu)
        if len(ranked) <= cfg.top + 1:
            return dict.fromkeys(skills, 1.0 + w)
        edge = ranked[cfg.top + 1]
        return {v: 1.0 + w * (1.0 - doubt_of_side(s, edge)) for v, s in skills.items()}

    def _explore(self, candidates: list[str], table: list[str], skills: dict[str, Skill]
                 ) -> str | None:
        """With probability ``explore``, the candidate of a random rating window that has met
        the table least; otherwise None."""
        if not candidates or self._rng.random() >= self.config.explore:
            return None
        ranked = sorted(candidates, key=lambda v: (-skills[v].mu, v))
        width = max(1, len(table) + 1)
        windows = [ranked[i:i + width] for i in range(0, len(ranked), width)]
        window = windows[self._rng.randrange(len(windows))]
        return min(window, key=lambda v: (sum(self._meetings.get(
            (v, t) if v < t else (t, v), 0) for t in table), v))

    def _band(self, versions: Sequence[Version], now: float
              ) -> tuple[dict[str, float], set[str], set[str]]:
        """Each version's share of its fair share of the games scheduled in the window, and
        which are below the band (starving) and at or over its top (flooded)."""
        cfg = self.config
        while self._ledger and self._ledger[0][0] <= now - cfg.window:
            self._ledger.popleft()
        seats: dict[str, int] = {}
        for _, table in self._ledger:
            for v in table:
                seats[v] = seats.get(v, 0) + len(table)
        start = now - cfg.window
        present = {v.id: max(now - max(v.joined, start), 1e-9) for v in versions}
        total_time = sum(present.values())
        total = sum(seats.get(v, 0) for v in present)
        size = max(cfg.table_sizes)
        share, starving, flooded = {}, set(), set()
        for v, t in present.items():
            fair = total * t / total_time
            got = seats.get(v, 0)
            share[v] = got / fair if fair > 0 else 0.0
            # One deal set of slack, so that the band binds only on what a table can change.
            if got >= cfg.band[1] * fair + size and fair > 0:
                flooded.add(v)
            if t >= cfg.window / 2 and got + size <= cfg.band[0] * fair:
                starving.add(v)
        return share, starving, flooded

    def _record(self, table: Sequence[str], now: float) -> None:
        k = len(table)
        self._ledger.append((now, tuple(table)))
        for i, a in enumerate(table):
            self._scheduled[a] = self._scheduled.get(a, 0) + k
            for b in table[i + 1:]:
                key = (a, b) if a < b else (b, a)
                self._meetings[key] = self._meetings.get(key, 0) + 1


def expected_tau(skills: Sequence[Skill]) -> float:
    """Kendall's tau the estimate expects its order to hold against the true one: each pair
    is discordant with its ``doubt``, so 1 − 2 Σ doubt / pairs."""
    pairs = len(skills) * (len(skills) - 1) // 2
    if not pairs:
        return 1.0
    wrong = sum(doubt(a, b) for i, a in enumerate(skills) for b in skills[i + 1:])
    return 1.0 - 2.0 * wrong / pairs


def doubt_of_side(a: Skill, edge: Skill) -> float:
    """The probability that ``a`` is really below ``edge`` (one-sided, unlike ``doubt``)."""
    spread = math.sqrt(a.var + edge.var)
    return 0.5 * math.erfc((a.mu - edge.mu) / spread / math.sqrt(2.0))
