"""The SQLite schema of the tournament store, as numbered migrations.

The database's ``PRAGMA user_version`` is the number of migrations applied. Opening a store applies
the missing ones in order, each in its own transaction together with the version bump, so a crash
mid-upgrade leaves the previous version intact. Never edit a released migration: append one.
From version 3 ``PRAGMA application_id`` is ``APPLICATION_ID``, so that no other program's SQLite
file is ever taken for a store (``storefile.identify``).

Tables (JSON columns hold compact JSON; times are ISO 8601 UTC):

- ``tournaments``: id, name, the validated config (``TournamentConfig.to_dict``), seed, created,
  status (created, running, paused, finished), and (from version 2) ``workdir``: the directory
  the tournament was started from, where its bot commands run on every resume (NULL for
  tournaments stored before version 2: they run in the current directory), and (from version 4)
  ``deal_key``: the tournament's secret ``DealKey`` in hex, which every seed and game id of its
  schedule derive from (NULL before version 4). ``seed`` is 0 when the config has none (a
  secret tournament).
- ``jobs``: the schedule, one row per game, with the self-contained ``Job`` JSON in ``spec`` and
  a status: pending, running (claimed by a runner), done (its game is recorded), skipped (a
  match stopped early by its SPRT).
- ``games``: one row per finished job (``job_id`` UNIQUE: a result can never be stored twice),
  with seed, rules, seats, totals, places, strikes, forfeits and times.
- ``events``: up to version 4, every game's full log in order: engine events, moves with their
  timings, strikes (one row each, ~1,000 rows and ~100 KB a game). From version 5 a game is
  kept as ``games.record`` instead (``records.py``) and ``events`` only holds the logs of old
  games that did not replay exactly when the store was migrated (``legacy.upgrade``).
- ``games.record`` (from version 5): the game's moves, answer times, defaulted moves and
  faults, one compressed value (``records.py``); NULL for a game still kept in ``events``.

Indexes: ``jobs_by_status`` (the next job to claim), and from version 6 ``jobs_by_seed`` (the
jobs sharing a seed: the seatings of one deal). A store read and never written keeps the
indexes of its version; reads are the same without them, only slower.

A migration step is an SQL statement, or a function of the connection for what SQL cannot do
(rewriting old games as records).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Final

from .legacy import upgrade

Step = str | Callable[[sqlite3.Connection], None]
"""One step of a migration: an SQL statement, or a function run on the connection."""

APPLICATION_ID: Final = 0x43524149
"""``PRAGMA application_id`` of a craits store: "CRAI" in ASCII."""

TABLES: Final = frozenset({"tournaments", "jobs", "games", "events"})
"""The tables every version of the store has: how a store from before ``APPLICATION_ID`` is
recognized."""

MIGRATIONS: Final[tuple[tuple[Step, ...], ...]] = (
    (
        """CREATE TABLE tournaments (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            config TEXT NOT NULL,
            seed INTEGER NOT NULL,
            created TEXT NOT NULL,
            status TEXT NOT NULL
                CHECK (status IN ('created', 'running', 'paused', 'finished'))
        )""",
        """CREATE TABLE jobs (
            id INTEGER PRIMARY KEY,
            tournament_id TEXT NOT NULL REFERENCES tournaments(id),
            game_index INTEGER NOT NULL,
            meeting_index INTEGER NOT NULL,
            deal_set INTEGER NOT NULL,
            rotation INTEGER NOT NULL,
            seats TEXT NOT NULL,
            seed INTEGER NOT NULL,
            spec TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'running', 'done', 'skipped')),
            claimed TEXT,
            UNIQUE (tournament_id, game_index)
        )""",
        "CREATE INDEX jobs_by_status ON jobs (tournament_id, status, game_index)",
        """CREATE TABLE games (
            id INTEGER PRIMARY KEY,
            job_id INTEGER NOT NULL UNIQUE REFERENCES jobs(id),
            seed INTEGER NOT NULL,
            rules TEXT NOT NULL,
            seats TEXT NOT NULL,
            totals TEXT NOT NULL,
            places TEXT NOT NULL,
            strikes TEXT NOT NULL,
            forfeited TEXT NOT NULL,
            outcome TEXT NOT NULL,
            started TEXT NOT NULL,
            finished TEXT NOT NULL
        )""",
        """CREATE TABLE events (
            game_id INTEGER NOT NULL REFERENCES games(id),
            idx INTEGER NOT NULL,
            kind TEXT NOT NULL,
            seat INTEGER NOT NULL,
            elapsed_ms REAL,
            data TEXT NOT NULL,
            PRIMARY KEY (game_id, idx)
        ) WITHOUT ROWID""",
    ),
    (
        # Bot commands may hold relative paths: a resume from elsewhere must run them where the
        # tournament was started.
        "ALTER TABLE tournaments ADD COLUMN workdir TEXT",
    ),
    (
        f"PRAGMA application_id={APPLICATION_ID}",
    ),
    (
        # The secret every deal and game id of the tournament derive from (hex; NULL for
        # tournaments stored before: their seeds and ids are in their jobs already).
        "ALTER TABLE tournaments ADD COLUMN deal_key TEXT",
    ),
    (
        # One compressed record per game instead of a row per event (issue 18): a store of
        # 100,000 games was 10-20 GB of events.
        "ALTER TABLE games ADD COLUMN record BLOB",
        upgrade,
    ),
    (
        # The seatings of a deal share its seed: the live pages ask at each request which jobs
        # share a few games' seeds (``Store.deals_in_play``), a scan of every job without this.
        "CREATE INDEX jobs_by_seed ON jobs (tournament_id, seed)",
    ),
)
"""Migration i (0-based) takes the database from version i to version i + 1."""

SCHEMA_VERSION: Final = len(MIGRATIONS)
RECORDS_VERSION: Final = next(i + 1 for i, steps in enumerate(MIGRATIONS) if upgrade in steps)
"""The first version that keeps games as records (``games.record``): 5."""
