"""The ladder's part of the contest store: the deal key, claimed tables, recorded games, the
board.

Exactly once, across kill -9, as ``craits.tournament.store`` does it: a deal set is *claimed*
(a ``ladder_tables`` row in ``playing``) before any of its games starts, and each seating is
*recorded* in one transaction with its seats and its record, guarded by ``UNIQUE (table_id,
rotation)``. A killed service leaves claimed tables with some seatings recorded; its successor
plays only the missing ones (``open_tables``), and a seating recorded twice (it cannot be, but
a replay that raced one would) is ignored, not counted again.

Functions over a ``ContestStore`` (its ``transaction`` and ``read``) rather than more methods on
it: the store stays the service's, this module the ladder's.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from craits.dealkey import DealKey
from craits.ratings.results import ScoredGame
from craits.tournament.store.game_records import FinishedGame
from craits.tournament.store.record_codec import encode

from .store import ContestStore

KEY_NAME: Final = "deal_key"


def deal_key(store: ContestStore) -> DealKey:
    """The contest's secret deal key, drawn from the OS's CSPRNG the first time and kept in the
    store (never shown anywhere: every deal and game id of the ladder derives from it)."""
    with store.transaction() as db:
        db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
                   (KEY_NAME, DealKey.fresh().hex))
        value: str = db.execute("SELECT value FROM meta WHERE key = ?", (KEY_NAME,)
                                ).fetchone()[0]
    return DealKey.from_hex(value)


def table_key(key: DealKey, table_id: int) -> DealKey:
    """The key of one claimed table: its deals and game ids, unpredictable without the
    contest's key and different for every table (two tables of the same versions get other
    cards)."""
    secret = hmac.new(key.secret, f"craits-ladder-table:{table_id}".encode(),
                      hashlib.sha256).digest()
    return DealKey(secret, key.testing)


@dataclass(frozen=True, slots=True)
class LadderTable:
    """A claimed deal set: its versions (seat order of the first seating), why it was chosen,
    and the seatings already recorded."""

    id: int
    versions: tuple[int, ...]
    reason: str
    recorded: frozenset[int] = frozenset()

    @property
    def missing(self) -> list[int]:
        """The seatings still to play, in order (seating-major within the table)."""
        return [r for r in range(len(self.versions)) if r not in self.recorded]


def claim_table(store: ContestStore, versions: Sequence[int], reason: str, now: float
                ) -> LadderTable:
    """Claim a new deal set of ``versions`` (committed before any game of it starts)."""
    with store.transaction() as db:
        cursor = db.execute("INSERT INTO ladder_tables (versions, reason, state, created_at) "
                            "VALUES (?, ?, 'playing', ?)", (json.dumps(list(versions)), reason,
                                                           now))
    assert cursor.lastrowid is not None
    return LadderTable(cursor.lastrowid, tuple(versions), reason)


def open_tables(store: ContestStore) -> list[LadderTable]:
    """Claimed tables not yet finished (a killed service's), oldest first, with the seatings
    already recorded."""
    tables = []
    for table_id, versions, reason in store.read(
            "SELECT id, versions, reason FROM ladder_tables WHERE state = 'playing' ORDER BY id"):
        done = {r for (r,) in store.read("SELECT rotation FROM games WHERE table_id = ?",
                                         (table_id,))}
        tables.append(LadderTable(table_id, tuple(json.loads(versions)), reason,
                                  frozenset(done)))
    return tables


def finish_table(store: ContestStore, table_id: int, now: float, void: str = "") -> None:
    """Mark a table done (every seating recorded), or ``void`` with the reason (it cannot be
    played: a version failed to start); a void table's recorded games still count."""
    with store.transaction() as db:
        db.execute("UPDATE ladder_tables SET state = ?, detail = ?, finished_at = ? "
                   "WHERE id = ?", ("void" if void else "done", void, now, table_id))


def record_game(store: ContestStore, table_id: int, rotation: int, seats: Sequence[int],
                game: FinishedGame, game_id: str, now: float,
                deal: tuple[int, str] | None = None) -> bool:
    """Record one played seating with its record, and each seat's faults against its version
    (what the owner reads), in one transaction; False (and nothing written) when that seating
    of that table is recorded already. ``deal``: the game's seed and rules JSON, kept so that
    the viewer can replay the record (``game_replay``)."""
    faulted = seat_faults(game)
    with store.transaction() as db:
        cursor = db.execute(
            "INSERT OR IGNORE INTO games (table_id, rotation, game_id, seats, totals, places, "
            "strikes, forfeited, faulted, record, outcome, started, finished) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (table_id, rotation, game_id, json.dumps(list(seats)), json.dumps(game.totals),
             json.dumps(game.places), json.dumps(game.strikes), json.dumps(game.forfeited),
             json.dumps(faulted), encode(game.play), json.dumps(dict(game.outcome)),
             game.started, game.finished))
        if cursor.rowcount == 0:
            return False
        db.executemany("INSERT INTO game_seats (game, version_id, faulted) VALUES (?, ?, ?)",
                       [(cursor.lastrowid, v, int(f)) for v, f in zip(seats, faulted,
                                                                     strict=True)])
        if deal is not None:
            db.execute("INSERT INTO game_deals (game, seed, rules) VALUES (?, ?, ?)",
                       (cursor.lastrowid, *deal))
        db.executemany("INSERT INTO faults (version_id, at, game, reason) VALUES (?, ?, ?, ?)",
                       [(seats[f.seat], now, game_id, f"{f.action} ({f.reason}): {f.detail}")
                        for f in game.play.faults if 0 <= f.seat < len(seats)])
    return True


def seat_faults(game: FinishedGame) -> list[bool]:
    """Per seat: whether it faulted in the game (a fault the referee recorded, or a forfeit)."""
    faulted = [bool(f) for f in game.forfeited] or [False] * len(game.totals)
    for fault in game.play.faults:
        if 0 <= fault.seat < len(faulted):
            faulted[fault.seat] = True
    return faulted


def scored_games(store: ContestStore, after: int = 0) -> list[ScoredGame]:
    """Every recorded game (or those after game ``after``: a reader that keeps what it read,
    as the matchmaker does, needs no more) as the ratings read it: seats are version ids (as
    text), the table is the meeting and its one deal set the unit of the intervals."""
    return [ScoredGame(game_index=gid, meeting_index=table_id, deal_set=0, rotation=rotation,
                       seats=tuple(str(v) for v in json.loads(seats)),
                       totals=tuple(json.loads(totals)), places=tuple(json.loads(places)),
                       strikes=tuple(json.loads(strikes)),
                       forfeited=tuple(json.loads(forfeited)))
            for gid, table_id, rotation, seats, totals, places, strikes, forfeited
            in store.read("SELECT id, table_id, rotation, seats, totals, places, strikes, "
                          "forfeited FROM games WHERE id > ? ORDER BY id", (after,))]


GameRow = tuple[int, int, list[int], list[int]]
"""A recorded game as the board's refit reads it: (id, table, version per seat, places)."""


def games_after(store: ContestStore, after: int, limit: int) -> list[GameRow]:
    """The first ``limit`` games recorded after game ``after``, oldest first: what a refit
    adds to what it read before (``refit``). Game ids grow in commit order (SQLite's rowid
    under one writer at a time), so none can appear later below one already read."""
    return [(gid, table_id, json.loads(seats), json.loads(places))
            for gid, table_id, seats, places in store.read(
                "SELECT id, table_id, seats, places FROM games WHERE id > ? ORDER BY id LIMIT ?",
                (after, limit))]


def finished_among(store: ContestStore, table_ids: Sequence[int], read_up_to: int
                   ) -> set[int]:
    """Those of ``table_ids`` finished (done or void) with no game after game ``read_up_to``:
    a reader that has read every game up to that one has all of theirs (``finish_table``
    comes after a table's last ``record_game``, and one statement reads one snapshot)."""
    finished: set[int] = set()
    for start in range(0, len(table_ids), 500):
        chunk = list(table_ids[start:start + 500])
        marks = ", ".join("?" * len(chunk))
        finished.update(t for (t,) in store.read(
            f"SELECT id FROM ladder_tables t WHERE state != 'playing' AND id IN ({marks}) AND "
            "NOT EXISTS (SELECT 1 FROM games g WHERE g.table_id = t.id AND g.id > ?)",
            (*chunk, read_up_to)))
    return finished


def game_at(store: ContestStore, table_id: int, rotation: int) -> int | None:
    """The id of the game recorded for that seating of that table (None: not recorded)."""
    rows = store.read("SELECT id FROM games WHERE table_id = ? AND rotation = ?",
                      (table_id, rotation))
    return int(rows[0][0]) if rows else None


@dataclass(frozen=True, slots=True)
class GameReplay:
    """What replaying one recorded game needs: its seed and rules, its encoded record and the
    outcome the replay must reach."""

    seed: int
    rules_json: str
    record: bytes
    outcome: dict[str, Any]


def game_replay(store: ContestStore, game: int) -> GameReplay | None:
    """Recorded game ``game``'s replay; None when it is not recorded, or was recorded before
    seeds and rules were kept."""
    rows = store.read("SELECT d.seed, d.rules, g.record, g.outcome FROM games g "
                      "JOIN game_deals d ON d.game = g.id WHERE g.id = ?", (game,))
    if not rows:
        return None
    seed, rules, record, outcome = rows[0]
    return GameReplay(seed, rules, bytes(record), json.loads(outcome))


def games_per_version(store: ContestStore) -> dict[int, int]:
    """Games each version has played."""
    return {v: n for v, n in store.read(
        "SELECT version_id, COUNT(*) FROM game_seats GROUP BY version_id")}


def recent_faults(store: ContestStore, version_id: int, window: int) -> tuple[int, int]:
    """(games, games with a fault) among the version's last ``window`` games."""
    rows = store.read("SELECT faulted FROM game_seats WHERE version_id = ? ORDER BY game DESC "
                      "LIMIT ?", (version_id, window))
    return len(rows), sum(f for (f,) in rows)


def game_count(store: ContestStore) -> int:
    """Games recorded in all."""
    count: int = store.read("SELECT COUNT(*) FROM games")[0][0]
    return count


def publish_board(store: ContestStore, rows: list[dict[str, Any]], now: float) -> None:
    """Replace the published board (``store.standings`` reads it)."""
    with store.transaction() as db:
        db.execute("INSERT INTO board (id, at, rows) VALUES (1, ?, ?) ON CONFLICT (id) DO "
                   "UPDATE SET at = excluded.at, rows = excluded.rows", (now, json.dumps(rows)))
