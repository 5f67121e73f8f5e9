"""The ladder's tables in tests: a played deal set written straight into a store (for the tests
of what the ladder does with its results), and tables of three in a real contest directory,
for the tests that kill what plays them (a table worker process, a Ray actor) in the middle of
a table: the contest they start from, its tables read from the store as another process would,
and the check that every table ended whole with each of its seatings recorded once."""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path
from typing import Any

from craits.contest.store import ContestStore

from .processes import read_store
from .server import make_contest

SEATS = 3
"""Tables of three: three seatings a table, so a kill can fall between two of them."""


def played_table(store: ContestStore, versions: list[int], winner: int) -> None:
    """A played deal set of two seatings, ``winner`` first in both."""
    with store.transaction() as db:
        table = db.execute("INSERT INTO ladder_tables (versions, reason, state, created_at) "
                           "VALUES (?, 'test', 'done', 0)", (json.dumps(versions),)).lastrowid
        for rotation in range(2):
            seats = versions if rotation == 0 else versions[::-1]
            places = [1 if v == winner else 2 for v in seats]
            game = db.execute(
                "INSERT INTO games (table_id, rotation, game_id, seats, totals, places, "
                "strikes, forfeited, faulted, record, outcome, started, finished) VALUES "
                "(?, ?, 'g', ?, '[0, 0]', ?, '[0, 0]', '[false, false]', '[]', x'', '{}', 0, "
                "0)", (table, rotation, json.dumps(seats), json.dumps(places))).lastrowid
            db.executemany("INSERT INTO game_seats (game, version_id, faulted) VALUES "
                           "(?, ?, 0)", [(game, v) for v in seats])


def tables_of_three(contest: Path) -> None:
    """A contest of ann, bob and cid at tables of three, playing short games."""
    make_contest(contest, f"tables.min_seats = {SEATS}\ntables.max_seats = {SEATS}",
                 names=("ann", "bob", "cid"))
    config = contest / "contest.toml"
    config.write_text(config.read_text().replace('preset = "standard"',
                                                 'preset = "standard"\nshort_game = true'))


def read(contest: Path, sql: str, *args: object) -> list[tuple[Any, ...]]:
    """The rows of ``sql`` (with ``args``) in the contest's store, read-only."""
    with closing(read_store(contest)) as db:
        return db.execute(sql, args).fetchall()


def tables(contest: Path, state: str) -> set[int]:
    """The tables in ``state`` (playing, done, void)."""
    return {r[0] for r in read(contest, f"SELECT id FROM ladder_tables WHERE state = '{state}'")}


def seatings(contest: Path) -> list[tuple[int, int, str]]:
    """Every recorded game as (table, rotation, game), in the order they were recorded."""
    return [(t, r, g) for t, r, g in read(
        contest, "SELECT table_id, rotation, game_id FROM games ORDER BY id")]


def half_played(contest: Path) -> bool:
    """A table in play with a seating recorded: a kill now falls in the middle of a table."""
    playing = tables(contest, "playing")
    return any(t in playing for t, _, _ in seatings(contest))


def two_tables_half_played(contest: Path) -> bool:
    """Two tables in play, each with a game recorded: whichever one a kill stops, it stops
    in the middle of a table."""
    playing = tables(contest, "playing")
    recorded = {t for (t,) in read(contest, "SELECT table_id FROM games")}
    return len(playing) == 2 and playing <= recorded


def assert_each_seating_once(contest: Path) -> None:
    """Each seating of a table recorded once as a game of its own, every done table whole,
    none void, and all three versions seated."""
    games = seatings(contest)
    keys = [(t, r) for t, r, _ in games]
    assert len(keys) == len(set(keys)) and len({g for _, _, g in games}) == len(games)
    for table in tables(contest, "done"):
        assert sorted(r for t, r in keys if t == table) == list(range(SEATS)), table
    assert not tables(contest, "void")
    seated = {v for (versions,) in read(contest, "SELECT versions FROM ladder_tables")
              for v in json.loads(versions)}
    assert seated == {1, 2, 3}
