"""The contest store's tables (``PRAGMA user_version`` = ``SCHEMA_VERSION``).

- ``contestants``: a name and the SHA-256 of its token (``tokens.py``), never the token.
- ``versions``: one per (contestant, content hash): the number the contestant sees (1, 2, ...),
  how the version starts (its manifest), its size, its state (``versions.py``) with the reason
  for its owner and the log excerpt of its validation, and ``lease_until``: a validator's claim,
  which a killed service's successor sees expire and so replays the validation.
- ``uploads``: every upload a contestant made, accepted or not, with its outcome: the rate
  limit counts these, and they tell an organiser who uploaded what, when.
- ``faults``: what the ladder records against a version (a seat's faults in a game, a start
  that failed), read by its owner.
- ``meta``: the contest's secret deal key (``ladderstore.deal_key``), drawn once.
- ``ladder_tables``: each deal set the ladder claimed (its versions in the seat order of the
  first seating); ``playing`` until every seating is recorded, so a killed service's successor
  plays the missing seatings of exactly these tables (``ladder.py``).
- ``games``: one row per played seating, ``UNIQUE (table_id, rotation)``: what the ratings read
  (the ``ScoredGame`` fields), which seats faulted, and the game's record (the tournament
  store's encoding: every move with its timing, every fault). The unique key is what makes a
  game counted once however often a killed service replays its table.
- ``game_seats``: which versions sat in each game and whether each faulted: a version's game
  count and its fault rate over its last games (suspension) read this index.
- ``board``: the published standings, one JSON row written after each refit.
- ``game_deals``: each recorded game's seed and rules (JSON), written with it: what the report's
  viewer replays a record from (``/games/ID``). A table of its own, created on open, so stores
  from before it need no migration; their games are shown by result only.

The unpacked files live beside the database, in ``bots/<content hash>/`` (``uploads.py``).
"""

from __future__ import annotations

from typing import Final

SCHEMA_VERSION: Final = 2
"""2 added the ladder's tables (``meta`` to ``board``); a version 1 store gains them when opened."""

SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS contestants (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    token_digest TEXT NOT NULL UNIQUE,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS versions (
    id INTEGER PRIMARY KEY,
    contestant_id INTEGER NOT NULL REFERENCES contestants(id),
    number INTEGER NOT NULL,
    content_hash TEXT NOT NULL,
    source TEXT NOT NULL,
    command TEXT NOT NULL,
    runtime TEXT NOT NULL,
    files INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    state TEXT NOT NULL,
    reason TEXT,
    log TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL,
    state_at REAL NOT NULL,
    lease_until REAL,
    UNIQUE (contestant_id, number),
    UNIQUE (contestant_id, content_hash)
);
CREATE INDEX IF NOT EXISTS versions_by_state ON versions(state, id);
CREATE TABLE IF NOT EXISTS uploads (
    id INTEGER PRIMARY KEY,
    contestant_id INTEGER NOT NULL REFERENCES contestants(id),
    at REAL NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('new', 'same', 'refused')),
    version_id INTEGER REFERENCES versions(id),
    detail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS uploads_by_contestant ON uploads(contestant_id, at);
CREATE TABLE IF NOT EXISTS faults (
    id INTEGER PRIMARY KEY,
    version_id INTEGER NOT NULL REFERENCES versions(id),
    at REAL NOT NULL,
    game TEXT,
    reason TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS faults_by_version ON faults(version_id, id);
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS ladder_tables (
    id INTEGER PRIMARY KEY,
    versions TEXT NOT NULL,
    reason TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('playing', 'done', 'void')),
    detail TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL,
    finished_at REAL
);
CREATE INDEX IF NOT EXISTS ladder_tables_by_state ON ladder_tables(state, id);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    table_id INTEGER NOT NULL REFERENCES ladder_tables(id),
    rotation INTEGER NOT NULL,
    game_id TEXT NOT NULL,
    seats TEXT NOT NULL,
    totals TEXT NOT NULL,
    places TEXT NOT NULL,
    strikes TEXT NOT NULL,
    forfeited TEXT NOT NULL,
    faulted TEXT NOT NULL,
    record BLOB NOT NULL,
    outcome TEXT NOT NULL,
    started REAL NOT NULL,
    finished REAL NOT NULL,
    UNIQUE (table_id, rotation)
);
CREATE TABLE IF NOT EXISTS game_seats (
    game INTEGER NOT NULL REFERENCES games(id),
    version_id INTEGER NOT NULL REFERENCES versions(id),
    faulted INTEGER NOT NULL,
    PRIMARY KEY (version_id, game)
);
CREATE TABLE IF NOT EXISTS game_deals (
    game INTEGER PRIMARY KEY REFERENCES games(id),
    seed INTEGER NOT NULL,
    rules TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS board (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    at REAL NOT NULL,
    rows TEXT NOT NULL
);
"""
