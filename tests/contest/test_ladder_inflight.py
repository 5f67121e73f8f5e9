"""The ladder's choice with tables in flight, on a real store and a virtual clock (no table is
played: the tables are claimed and left in flight, as worker processes would hold them): in the
finals the matchmaker counts the finals' games alone plus the seatings in flight, and no table
is claimed that the finalists' deal sets in flight already cover."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest
import trio

from craits.contest.ladder import Ladder
from craits.contest.matchmaking import MatchConfig, Matchmaker, Table
from craits.contest.matchmaking import Version as Candidate
from craits.contest.phases import set_phase
from craits.contest.service import open_contest
from craits.contest.validation import ContestRun
from craits.contest.versions import VersionState
from craits.ratings.results import ScoredGame

from .ladder_tables import played_table
from .server import Clock, make_contest
from .uploaded import add_version, wrapped


class Seen(Matchmaker):
    """The real matchmaker, remembering what the ladder told it at each choice."""

    def __init__(self, config: MatchConfig, seed: int) -> None:
        super().__init__(config, seed)
        self.told: list[tuple[dict[str, int], int]] = []

    def next_tables(self, versions: Sequence[Candidate], games: Iterable[ScoredGame] = (),
                    now: float = 0.0, count: int = 1) -> list[Table]:
        games = list(games)
        self.told.append(({v.id: v.games for v in versions}, len(games)))
        return super().next_tables(versions, games, now, count)


def test_the_contests_matchmaking_knobs_reach_its_matchmaker(tmp_path: Path) -> None:
    make_contest(tmp_path, "ladder.top_weight = 3\nladder.rate_least = 0.25\n"
                           "ladder.rate_most = 4\nladder.top_after_tau = 0.5")
    run = open_contest(tmp_path, Clock())
    config = Ladder(ContestRun(tmp_path, run.config, run.store, run.clock),
                    seed=1).matchmaker.config
    assert (config.top_weight, config.band, config.top_after_tau) == (3.0, (0.25, 4.0), 0.5)


def test_finals_count_their_own_games_and_the_tables_in_flight(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    contest = tmp_path / "cup"
    make_contest(contest, "tables.max_seats = 2\nphases.finalists = 2\n"
                          "phases.finals_deal_sets = 2", names=("ann", "bob", "cid"))
    clock = Clock()
    run = open_contest(contest, clock)
    config, store = run.config, run.store
    ids = []
    for contestant, bot in ((1, "greedy"), (2, "lowcard"), (3, "random")):
        version = add_version(contest, store, contestant, wrapped(bot))
        store.set_state(version.id, VersionState.RATED, clock())
        ids.append(version.id)
    for _ in range(3):  # before the finals: 12 games each for the top two
        played_table(store, ids[:2], ids[0])
        played_table(store, ids[1:], ids[1])
    played_table(store, [ids[0], ids[2]], ids[0])
    ladder = Ladder(ContestRun(contest, config, store, clock), seed=1)
    trio.run(ladder.refresh)
    matchmakers: list[Seen] = []
    config_of = ladder.matchmaker.config

    def new_matchmaker() -> Seen:
        matchmakers.append(Seen(config_of, seed=1))
        return matchmakers[-1]

    monkeypatch.setattr(ladder, "_new_matchmaker", new_matchmaker)
    set_phase(config, store, "finals", clock())
    finalists = {str(v) for v in ids[:2]}

    first = trio.run(ladder.claim)
    assert first is not None and set(map(str, first.versions)) == finalists
    assert len(matchmakers) == 1, "the finals start with a matchmaker of their own"
    assert matchmakers[0].told[-1] == (dict.fromkeys(finalists, 0), 0)  # finals' games only

    ladder.in_flight[first.id] = first  # a worker plays it
    second = trio.run(ladder.claim)
    assert second is not None
    assert matchmakers[0].told[-1] == (dict.fromkeys(finalists, 2), 0)  # its two seatings

    ladder.in_flight[second.id] = second
    assert trio.run(ladder.claim) is None  # two deal sets each in flight: the finals need no more
    assert len(matchmakers[0].told) == 2
    claimed = store.read("SELECT COUNT(*) FROM ladder_tables WHERE state = 'playing'")[0][0]
    assert claimed == 2
    store.close()
