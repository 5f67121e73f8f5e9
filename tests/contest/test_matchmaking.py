"""The contest's matchmaker (``craits.contest.matchmaking``): deterministic given its seed, new
versions first, the band kept over a simulated day, table sizes respected, and the true order
found by a small simulation. Every clock here is the simulation's: no test reads the time."""

from __future__ import annotations

import ast
import math
import random
import tracemalloc
from pathlib import Path

import pytest

from craits.contest.estimate import Skill
from craits.contest.matchmaking import (
    BETA,
    MatchConfig,
    Matchmaker,
    Table,
    Version,
    doubt,
    doubt_of_side,
    expected_tau,
)
from craits.contest.simulation import kendall_tau, play_deal_set, top_exact
from craits.ratings.bradley_terry import bradley_terry
from craits.ratings.results import ScoredGame


def simulate(maker: Matchmaker, strength: dict[str, float], deal_sets: int, seed: int,
             seconds_per_table: float = 60.0, joined: dict[str, float] | None = None,
             ) -> tuple[list[Table], list[ScoredGame], list[float]]:
    """Play ``deal_sets`` tables chosen by ``maker``, one every ``seconds_per_table``, each
    version present from its ``joined`` time (0 by default); the tables, games and times."""
    rng = random.Random(seed)
    games: list[ScoredGame] = []
    tables: list[Table] = []
    times: list[float] = []
    played = dict.fromkeys(strength, 0)
    joined = joined or {}
    for d in range(deal_sets):
        now = d * seconds_per_table
        versions = [Version(v, joined.get(v, 0.0), played[v]) for v in sorted(strength)
                    if joined.get(v, 0.0) <= now]
        for table in maker.next_tables(versions, games, now):
            new = play_deal_set(table.versions, strength, rng, d, len(games))
            games.extend(new)
            tables.append(table)
            times.append(now)
            for v in table.versions:
                played[v] += len(new)
    return tables, games, times


def spaced(n: int, gap: float) -> dict[str, float]:
    return {f"v{i:02d}": gap * (n - i) for i in range(n)}


def test_the_same_seed_gives_the_same_tables() -> None:
    strength = spaced(10, 50.0)
    runs = [simulate(Matchmaker(seed=7), strength, 60, seed=3)[0] for _ in range(2)]
    assert runs[0] == runs[1]
    other = simulate(Matchmaker(seed=8), strength, 60, seed=3)[0]
    assert all(len(set(t.versions)) == 4 for t in other)


def test_games_are_learned_once_whatever_the_batches() -> None:
    strength = spaced(6, 80.0)
    _, games, _ = simulate(Matchmaker(seed=1), strength, 30, seed=2)
    whole, halves = Matchmaker(), Matchmaker()
    whole.observe(games)
    halves.observe(reversed(games[:len(games) // 2]))  # a batch in any order
    halves.observe(games)  # the first half again, and the second: each seen once
    assert whole.estimate.records == halves.estimate.records
    ids = sorted(strength)
    assert whole.estimate.fitted(ids) == halves.estimate.fitted(ids)


def test_what_it_remembers_of_the_games_seen_does_not_grow_with_them() -> None:
    """Over a contest's weeks the matchmaker is shown hundreds of thousands of games: what it
    keeps to skip those already learned stays the same size (a set of their ids grew by 33-67
    bytes a game), and a game given again, alone or in a later batch, is still learned once."""
    strength = spaced(8, 60.0)
    rng = random.Random(5)
    ids = sorted(strength)
    games: list[ScoredGame] = []
    for d in range(3000):
        games.extend(play_deal_set(rng.sample(ids, 4), strength, rng, d, len(games)))
    maker = Matchmaker()
    maker.observe(games[:400])  # every version's estimate exists before the measurement
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for start in range(400, len(games), 400):
            maker.observe(games[start - 4:start + 400])  # overlapping batches
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 2_000, f"{grown} bytes kept for {len(games) - 400} games"
    once = Matchmaker()
    once.observe(games)
    assert maker.estimate.records == once.estimate.records
    maker.observe(games[-1:])
    assert maker.estimate.records == once.estimate.records


def test_a_new_version_plays_first() -> None:
    strength = spaced(8, 60.0)
    maker = Matchmaker(seed=5)
    _, games, _ = simulate(maker, strength, 40, seed=1)
    versions = [Version(v, 0.0, sum(v in g.seats for g in games)) for v in strength]
    late = Version("new", 40 * 60.0 - 30, 0)  # joined half a minute ago
    table = maker.next_tables([*versions, late], [], now=40 * 60.0)[0]
    assert table.reason == "new"
    assert table.versions[0] == "new"
    # and it keeps the first seat until it has played its first games (new_games)
    follow = maker.next_tables([*versions, late], [], now=40 * 60.0 + 60)[0]
    assert follow.versions[0] == "new"
    after = maker.next_tables([*versions, late], [], now=40 * 60.0 + 120)[0]
    assert after.reason != "new"


def test_the_oldest_new_version_goes_first() -> None:
    maker = Matchmaker()
    versions = [Version("a", 0.0, 50), Version("b", 0.0, 50), Version("c", 0.0, 50),
                Version("late", 20.0), Version("later", 30.0)]
    first = maker.next_tables(versions, [], now=40.0)[0]
    assert first.versions[0] == "late" and first.reason == "new"


@pytest.mark.slow
def test_no_version_starved_or_flooded_over_a_day() -> None:
    """A day at 60 tables an hour, 12 versions 100 Elo apart (information alone would play
    the leaders): every hour, every version's games within the band, give or take two deal
    sets (what a sliding window lets through at an hour's edges)."""
    cfg = MatchConfig()
    strength = spaced(12, 100.0)
    tables, _, times = simulate(Matchmaker(cfg, seed=11), strength, 24 * 60, seed=4)
    slack = 2 * 4
    for hour in range(1, 24):
        count = dict.fromkeys(strength, 0)
        for table, t in zip(tables, times, strict=True):
            if hour * 3600 <= t < (hour + 1) * 3600:
                for v in table.versions:
                    count[v] += 4
        mean = sum(count.values()) / len(count)
        low, high = cfg.band
        assert min(count.values()) >= low * mean - slack, (hour, count)
        assert max(count.values()) <= high * mean + slack, (hour, count)


def test_a_version_below_the_band_is_seeded_next() -> None:
    strength = spaced(8, 60.0)
    maker = Matchmaker(seed=3)
    simulate(maker, strength, 60, seed=2)
    # A version that was away for the last hour (present all along, scheduled never since)
    versions = [Version(v, 0.0, 100) for v in strength] + [Version("idle", 0.0, 100)]
    table = maker.next_tables(versions, [], now=60 * 60.0)[0]
    assert table.versions[0] == "idle" and table.reason == "starving"


@pytest.mark.parametrize("sizes", [(2,), (3,), (10,), (2, 5, 10)])
def test_tables_have_the_configured_sizes(sizes: tuple[int, ...]) -> None:
    strength = spaced(12, 40.0)
    tables, _, _ = simulate(Matchmaker(MatchConfig(table_sizes=sizes), seed=1), strength,
                            30, seed=1)
    assert [len(t.versions) for t in tables] == [sizes[i % len(sizes)] for i in range(30)]
    for t in tables:
        assert len(set(t.versions)) == len(t.versions)
        assert set(t.versions) <= set(strength)


@pytest.mark.parametrize("sizes", [(), (1,), (11,), (2, 11)])
def test_table_sizes_outside_two_to_ten_are_refused(sizes: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="between 2 and 10"):
        MatchConfig(table_sizes=sizes)


def test_too_few_versions_give_a_smaller_configured_table_or_none() -> None:
    three = [Version(v, 0.0) for v in "abc"]
    maker = Matchmaker(MatchConfig(table_sizes=(4, 3, 2)))
    assert [len(t.versions) for t in maker.next_tables(three, [], 0.0, count=3)] == [3, 3, 2]
    assert maker.next_tables(three[:1], [], 0.0) == []
    assert Matchmaker(MatchConfig(table_sizes=(4,))).next_tables(three, [], 0.0) == []


def test_several_tables_in_one_call_spread_the_field() -> None:
    versions = [Version(f"v{i}", 0.0, 0) for i in range(8)]
    tables = Matchmaker(seed=2).next_tables(versions, [], 0.0, count=2)
    assert len(tables) == 2
    assert set(tables[0].versions) | set(tables[1].versions) == {v.id for v in versions}


@pytest.mark.parametrize(("resolve", "top_ramp"), [(0.0, 0.0), (0.5, 0.0), (1.0, 0.0),
                                                  (0.0, 20.0)])
def test_past_the_new_versions_tables_go_where_the_order_is_in_doubt(
        resolve: float, top_ramp: float) -> None:
    """The seed is the version with the most weighted doubt against all the others, and each
    seat the candidate with the most against those seated, every pair's value discounted by
    the deal sets it already played and, with ``resolve``, scaled by the share of the pair's
    variance one more deal set would settle, the top's weight grown with the field's mean games
    along ``top_ramp`` (the module doc's definition, written out here)."""
    cfg = MatchConfig(explore=0.0, resolve=resolve, top_ramp=top_ramp, top_after_tau=0.0)
    maker = Matchmaker(cfg, seed=4)
    rng = random.Random(4)
    ids = [f"v{i}" for i in range(9)]
    maker.estimate.skills = {v: Skill(rng.gauss(0.0, 120.0), rng.uniform(20.0, 90.0) ** 2)
                          for v in ids}
    skills = maker.estimate.skills
    edge = sorted(skills.values(), key=lambda s: -s.mu)[cfg.top + 1]
    scheduled = dict.fromkeys(ids, 0)
    weight: dict[str, float] = {}
    met: dict[frozenset[str], int] = {}

    def value(a: str, b: str) -> float:
        m = met.get(frozenset((a, b)), 0)
        spread = skills[a].var + skills[b].var
        alone = 4.0 * BETA * BETA + 2.0 * spread  # what one deal set alone leaves
        pair = 1.0 / (1.0 / spread + m / alone)
        return (doubt(skills[a], skills[b]) * min(weight[a], weight[b])
                / (1.0 + m / cfg.meetings_scale) * math.pow(pair / (pair + alone), resolve))

    versions = [Version(v, 0.0, cfg.new_games) for v in ids]
    for _ in range(4):
        games = sum(max(cfg.new_games, scheduled[v]) for v in ids) / len(ids)
        w = cfg.top_weight * (min(1.0, games / top_ramp) if top_ramp else 1.0)
        weight = {v: 1.0 + w * (1.0 - doubt_of_side(s, edge)) for v, s in skills.items()}
        [table] = maker.next_tables(versions, [], 0.0)
        expected = [max(ids, key=lambda v: sum(value(v, w) for w in ids if w != v))]
        while len(expected) < 4:
            expected.append(max((v for v in ids if v not in expected),
                                key=lambda v: sum(value(v, t) for t in expected)))
        assert table == Table(tuple(expected), "information")
        for v in expected:
            scheduled[v] += 4
        for i, a in enumerate(expected):
            for b in expected[i + 1:]:
                met[frozenset((a, b))] = met.get(frozenset((a, b)), 0) + 1


def test_the_tops_weight_grows_with_the_fields_games_along_the_ramp() -> None:
    skills = {f"v{i}": Skill(100.0 * i, 50.0 ** 2) for i in range(8)}
    plain = Matchmaker(MatchConfig(top_after_tau=0.0))._top_weights(skills, 0.0)
    ramped = Matchmaker(MatchConfig(top_ramp=20.0, top_after_tau=0.0))
    assert ramped._top_weights(skills, 0.0) == dict.fromkeys(skills, 1.0)
    half = ramped._top_weights(skills, 10.0)
    for v in skills:
        assert half[v] - 1.0 == pytest.approx((plain[v] - 1.0) / 2)
    assert ramped._top_weights(skills, 20.0) == ramped._top_weights(skills, 99.0) == plain
    assert max(plain.values()) > 6.0  # the leaders do weigh more once ramped up


def test_the_estimates_expected_tau_counts_each_pair_discordant_with_its_doubt() -> None:
    a, b, c = Skill(0.0, 100.0 ** 2), Skill(50.0, 100.0 ** 2), Skill(900.0, 1.0)
    assert expected_tau([a, b]) == pytest.approx(1.0 - 2.0 * doubt(a, b))
    assert expected_tau([a, a]) == pytest.approx(0.0)  # a coin toss: tau 0 expected
    assert expected_tau([a, b, c]) == pytest.approx(
        1.0 - 2.0 * (doubt(a, b) + doubt(a, c) + doubt(b, c)) / 3)
    assert expected_tau([a]) == expected_tau([]) == 1.0


def test_the_top_weighs_only_once_the_whole_order_is_expected_to_hold() -> None:
    """With ``top_after_tau``, every pair weighs alike while the estimate expects its order to
    hold a tau below it; past it, the top weighs as without it."""
    settled = {f"v{i}": Skill(100.0 * i, 30.0 ** 2) for i in range(8)}
    vague = {v: Skill(s.mu, 200.0 ** 2) for v, s in settled.items()}
    assert expected_tau(list(vague.values())) < 0.8 < expected_tau(list(settled.values()))
    plain = Matchmaker(MatchConfig(top_after_tau=0.0))
    after = Matchmaker(MatchConfig(top_after_tau=0.8))
    assert after._top_weights(vague, 50.0) == dict.fromkeys(vague, 1.0)
    assert plain._top_weights(vague, 50.0) != dict.fromkeys(vague, 1.0)  # the control
    assert after._top_weights(settled, 50.0) == plain._top_weights(settled, 50.0)
    assert max(after._top_weights(settled, 50.0).values()) > 6.0
    with pytest.raises(ValueError, match="top_after_tau"):
        MatchConfig(top_after_tau=1.0)


def test_resolve_seats_the_pair_one_more_deal_set_settles_most() -> None:
    """Against a new version (the seed), a candidate a little more in doubt but well known
    takes the seat on doubt alone; with ``resolve``, the one a little less in doubt but little
    known (σ 160 against 40) does, since a deal set settles more of its order; and it loses
    the seat again once the two have met often, its share of the meetings told apart from
    the ``meetings_scale`` discount (set out of reach here)."""
    skills = {"seed": Skill(0.0, 40.0 ** 2), "known": Skill(28.0, 40.0 ** 2),
              "vague": Skill(-87.0, 160.0 ** 2)}
    assert doubt(skills["seed"], skills["known"]) > doubt(skills["seed"], skills["vague"])
    versions = [Version("seed", 0.0, 0), Version("known", 0.0, 100),
                Version("vague", 0.0, 100)]

    def seat(resolve: float, met: int = 0) -> str:
        maker = Matchmaker(MatchConfig(table_sizes=(2,), explore=0.0, resolve=resolve,
                                       meetings_scale=1e9))
        maker.estimate.skills = {v: Skill(s.mu, s.var) for v, s in skills.items()}
        maker._meetings[("seed", "vague")] = met
        [table] = maker.next_tables(versions, [], 0.0)
        assert table.versions[0] == "seed" and table.reason == "new"
        return table.versions[1]

    assert seat(0.0) == "known"
    assert seat(0.5) == "vague"
    assert seat(1.0) == "vague"
    assert seat(0.5, met=10) == "vague"
    assert seat(0.5, met=20) == "known"
    assert seat(0.0, met=20) == "known"


def test_a_small_simulation_finds_the_true_order() -> None:
    strength = spaced(6, 150.0)
    _, games, _ = simulate(Matchmaker(MatchConfig(table_sizes=(3,)), seed=9), strength,
                           120, seed=9)
    board = bradley_terry(games, sorted(strength))
    assert kendall_tau(board, strength) == 1.0
    assert top_exact(board, strength, 3)


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(f"craits.contest.{node.module}" if node.level else node.module)
    return names


PURE = ("matchmaking", "estimate", "simulation")


@pytest.mark.parametrize("module", PURE)
def test_the_matchmaker_is_pure_logic(module: str) -> None:
    """It imports the standard library, ``craits.ratings`` and its pure siblings, nothing
    above: the service calls it, never the other way round."""
    import craits.contest

    path = Path(craits.contest.__file__).with_name(f"{module}.py")
    ours = {m for m in imports_of(path) if m.split(".")[0] in ("craits", "craits_sdk")}
    siblings = {f"craits.contest.{m}" for m in PURE}
    assert all(m.startswith("craits.ratings") or m in siblings for m in ours), ours
    allowed_std = {"__future__", "math", "random", "collections", "collections.abc",
                   "dataclasses", "typing"}
    assert imports_of(path) - ours <= allowed_std
