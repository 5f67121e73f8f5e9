"""Rating history and a new version's verdict against its predecessor: the t interval over deal
sets of ``head_to_head`` (with its "not enough games" below the minimum), kept in the real
store and returned by the API to the owner."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from craits.contest.store import ContestStore
from craits.contest.verdicts import (
    judge,
    predecessors,
    ratings_of,
    record_refit,
    verdict,
    verdict_line,
)
from craits.ratings.results import ScoredGame

from .server import make_contest, serving
from .uploaded import add_version, wrapped


def _games(a: str, b: str, wins: list[int]) -> list[ScoredGame]:
    """One deal set of two seatings per entry; ``wins`` games of the two go to ``a``."""
    games, index = [], 0
    for table, won in enumerate(wins):
        for rotation in range(2):
            places = (1, 2) if rotation < won else (2, 1)
            games.append(ScoredGame(index, table, 0, rotation, (a, b), (0, 0), places))
            index += 1
    return games


def test_a_verdict_needs_enough_deal_sets_then_gives_the_interval_and_los() -> None:
    few = verdict(_games("2", "1", [2, 1]), 2, 1, 1)
    assert few["los"] is None and few["low"] is None
    assert "not enough games" in few["note"] and "2 deal sets" in few["note"]
    assert "not enough games" in verdict_line(few)

    many = verdict(_games("2", "1", [2, 1, 2, 2, 1, 2, 2, 1, 2, 2]), 2, 1, 1)
    assert many["elo"] > 0 and many["low"] < many["elo"] < many["high"]
    assert 0.9 < many["los"] < 1.0 and many["deal_sets"] == 10
    line = verdict_line(many)
    assert line.startswith("against v1: +") and "LOS" in line and "10 deal sets" in line


def _seat(store: ContestStore, versions: list[int]) -> None:
    """A recorded game of ``versions`` (only what ``predecessors`` reads: the seats)."""
    with store.transaction() as db:
        table = db.execute("INSERT INTO ladder_tables (versions, reason, state, created_at) "
                           "VALUES (?, 'test', 'done', 0)", (json.dumps(versions),)).lastrowid
        game = db.execute(
            "INSERT INTO games (table_id, rotation, game_id, seats, totals, places, strikes, "
            "forfeited, faulted, record, outcome, started, finished) VALUES (?, 0, 'g', ?, "
            "'[]', '[]', '[]', '[]', '[]', x'', '{}', 0, 0)", (table, json.dumps(versions))
        ).lastrowid
        db.executemany("INSERT INTO game_seats (game, version_id, faulted) VALUES (?, ?, 0)",
                       [(game, v) for v in versions])


def test_history_and_verdicts_are_kept_and_shown_to_the_owner(tmp_path: Path) -> None:
    contest = tmp_path / "cup"
    tokens = make_contest(contest, names=("ann", "bob"))
    store = ContestStore.open(contest / "contest.db")
    ann = [add_version(contest, store, 1, wrapped(k) + f"# {k}\n")
           for k in ("random", "lowcard", "greedy")]
    bob = add_version(contest, store, 2, wrapped("greedy"))
    _seat(store, [ann[0].id, bob.id])
    _seat(store, [ann[2].id, ann[0].id])
    # v2 never played (rejected, say): v3's predecessor is v1; v1 and bob's have none.
    before = predecessors(store, [v.id for v in [*ann, bob]])
    assert before == {ann[1].id: (ann[0].id, 1), ann[2].id: (ann[0].id, 1)}

    games = _games(str(ann[2].id), str(ann[0].id), [2, 2, 1, 2, 2, 2, 1, 2])
    row = {"version_id": ann[2].id, "rating": 50.0, "low": 10.0, "high": 90.0, "games": 16,
           "deal_sets": 8, "rank": 1}
    verdicts = judge(games, [row], before)
    assert set(verdicts) == {ann[2].id}
    record_refit(store, [row], verdicts, 100.0)
    record_refit(store, [{**row, "rating": 55.0}], verdicts, 150.0)  # it did not play: no point
    record_refit(store, [{**row, "rating": 60.0, "games": 18}], verdicts, 200.0)
    kept = ratings_of(store, ann[2].id)
    assert [p["rating"] for p in kept["history"]] == [50.0, 60.0]
    fewer = judge(games[:4], [row], before)  # the finals' games alone: fewer deal sets
    record_refit(store, [{**row, "games": 18}], fewer, 300.0)
    assert ratings_of(store, ann[2].id)["verdict"] == verdicts[ann[2].id]
    assert kept["verdict"]["predecessor"] == 1 and kept["verdict"]["los"] > 0.5
    assert ratings_of(store, bob.id) == {"history": [], "verdict": None}
    store.close()

    with serving(contest) as served:
        me = httpx.get(f"{served.url}/api/v1/me",
                       headers={"Authorization": f"Bearer {tokens['ann']}"}).json()
    newest = next(v for v in me["versions"] if v["id"] == ann[2].id)
    assert len(newest["history"]) == 2 and newest["verdict"]["deal_sets"] == 8
    assert newest["verdict"]["los"] == verdicts[ann[2].id]["los"]
