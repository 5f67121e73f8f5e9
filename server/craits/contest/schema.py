"""The contest store's tables (``PRAGMA user_version`` = ``SCHEMA_VERSION``).

- ``contestants``: a name and the SHA-256 of its token (``tokens.py``), never the token.
- ``versions``: one per (contestant, content hash): the number the contestant sees (1, 2, ...),
  how the version starts (its manifest), its size, its state (``versions.py``) with the reason
  for its owner and the log excerpt of its validation, and ``lease_until``: a validator's claim,
  which a killed service's successor sees expire and so replays the validation.
- ``uploads``: every upload a contestant made, accepted or not, with its outcome: the rate
  limit counts these, and they tell an organiser who uploaded what, when.
- ``faults``: what the game loop (a later step) records against a version, read by its owner.

The unpacked files live beside the database, in ``bots/<content hash>/`` (``uploads.py``).
"""

from __future__ import annotations

from typing import Final

SCHEMA_VERSION: Final = 1

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
"""
