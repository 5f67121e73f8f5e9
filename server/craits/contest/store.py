"""The contest's SQLite store (WAL): contestants, versions, uploads, faults.

Every change is one transaction (``BEGIN IMMEDIATE``), so a service killed at any moment leaves
each row whole or absent. ``synchronous=FULL``: a committed upload survives a power cut too, not
only a killed process; uploads are rare enough that the extra fsync per commit costs nothing
measurable. The store does no file I/O of its own: ``uploads.py`` puts a version's files on disk
(durably) before it calls ``record_upload``, so a row never names files that are not there.

One connection, guarded by a lock: the API calls the store from trio's thread and from worker
threads (an upload is unpacked and recorded off the event loop).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from craits.sqlite_tx import write_transaction

from .schema import SCHEMA, SCHEMA_VERSION
from .versions import VersionState, check_move

DB_NAME: Final = "contest.db"
Outcome = Literal["new", "same", "refused"]


class StoreError(Exception):
    """The store cannot be opened or used as asked; the message says why."""


class NameTaken(StoreError):
    """A contestant of that name exists already."""


@dataclass(frozen=True, slots=True)
class Contestant:
    """A contestant as the API sees them (never their token)."""

    id: int
    name: str


@dataclass(frozen=True, slots=True)
class NewVersion:
    """What an upload made, before it has an id: its content and how it starts."""

    content_hash: str
    source: str
    """``archive``, or the single file's name."""
    command: str
    runtime: str
    files: int
    bytes: int


@dataclass(frozen=True, slots=True)
class Version:
    """A stored version."""

    id: int
    contestant_id: int
    number: int
    content_hash: str
    source: str
    command: str
    runtime: str
    files: int
    bytes: int
    state: VersionState
    reason: str | None
    log: str
    created_at: float
    state_at: float

    def summary(self) -> dict[str, Any]:
        """The fields a status listing shows."""
        return {"id": self.id, "number": self.number, "hash": self.content_hash,
                "state": str(self.state), "reason": self.reason,
                "created_at": self.created_at, "state_at": self.state_at,
                "source": self.source}

    def detail(self) -> dict[str, Any]:
        """Everything its owner may see of it (the log is its own call)."""
        return {**self.summary(), "command": self.command, "runtime": self.runtime,
                "files": self.files, "bytes": self.bytes}


@dataclass(frozen=True, slots=True)
class Fault:
    """One fault the game loop recorded against a version."""

    at: float
    game: str | None
    reason: str


_VERSION_COLUMNS: Final = ("id, contestant_id, number, content_hash, source, command, runtime, "
                           "files, bytes, state, reason, log, created_at, state_at")


class ContestStore:
    """One contest's database."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        """Prefer ``ContestStore.open``."""
        self._db = connection
        self._lock = threading.RLock()

    @staticmethod
    def open(path: Path) -> ContestStore:
        """Open (creating if needed) the store at ``path``, in WAL mode."""
        try:
            db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA busy_timeout=10000")
            mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"{path}: written by a newer craits (schema {version}); "
                                 "upgrade craits to serve this contest")
            db.executescript(SCHEMA)
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path}: not a contest database ({exc})") from None
        if str(mode).lower() != "wal":
            raise StoreError(f"{path}: SQLite refused WAL mode ({mode}); put the contest on a "
                             "local file system")
        return ContestStore(db)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def pragma(self, name: str) -> Any:
        """One PRAGMA's value (tests check ``journal_mode``)."""
        with self._lock:
            return self._db.execute(f"PRAGMA {name}").fetchone()[0]

    def transaction(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction on the store's connection, for the ladder's
        tables (``ladderstore.py``): committed whole or rolled back whole."""
        return self._transaction()

    def read(self, sql: str, parameters: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """The rows of one query (the ladder's reads), under the store's lock."""
        with self._lock:
            return self._db.execute(sql, parameters).fetchall()

    def _transaction(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        """A write transaction taken up front: all or nothing (``sqlite_tx``)."""
        return write_transaction(self._db, self._lock)

    # ------------------------------------------------------------------ contestants
    def add_contestant(self, name: str, token_digest: str, now: float) -> Contestant:
        """A new contestant; ``NameTaken`` if the name is in use."""
        try:
            with self._transaction() as db:
                cursor = db.execute(
                    "INSERT INTO contestants (name, token_digest, created_at) VALUES (?, ?, ?)",
                    (name, token_digest, now))
        except sqlite3.IntegrityError:
            raise NameTaken(f"a contestant called {name!r} exists already; choose another "
                            "name") from None
        assert cursor.lastrowid is not None
        return Contestant(cursor.lastrowid, name)

    def contestant_by_digest(self, token_digest: str) -> Contestant | None:
        """The contestant whose token has this digest."""
        with self._lock:
            row = self._db.execute("SELECT id, name FROM contestants WHERE token_digest = ?",
                                   (token_digest,)).fetchone()
        return None if row is None else Contestant(row[0], row[1])

    def contestant_count(self) -> int:
        with self._lock:
            count: int = self._db.execute("SELECT COUNT(*) FROM contestants").fetchone()[0]
        return count

    def contestants(self) -> list[Contestant]:
        """Every contestant, in the order they joined."""
        with self._lock:
            rows = self._db.execute("SELECT id, name FROM contestants ORDER BY id").fetchall()
        return [Contestant(r[0], r[1]) for r in rows]

    # ------------------------------------------------------------------ uploads
    def upload_times(self, contestant_id: int, since: float) -> list[float]:
        """When the contestant uploaded at or after ``since`` (every outcome), oldest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT at FROM uploads WHERE contestant_id = ? AND at >= ? ORDER BY at",
                (contestant_id, since)).fetchall()
        return [r[0] for r in rows]

    def record_upload(self, contestant_id: int, new: NewVersion, now: float
                      ) -> tuple[Version, Outcome]:
        """Record an accepted upload in one transaction: a new version in ``validating`` (and
        so in the validation queue), or, for content this contestant uploaded before, that
        version again (``same``). Call it only once the files are durably in place."""
        with self._transaction() as db:
            row = db.execute("SELECT id FROM versions WHERE contestant_id = ? AND "
                             "content_hash = ?", (contestant_id, new.content_hash)).fetchone()
            outcome: Outcome = "same" if row is not None else "new"
            if row is None:
                number = db.execute("SELECT COALESCE(MAX(number), 0) + 1 FROM versions "
                                    "WHERE contestant_id = ?", (contestant_id,)).fetchone()[0]
                cursor = db.execute(
                    "INSERT INTO versions (contestant_id, number, content_hash, source, "
                    "command, runtime, files, bytes, state, created_at, state_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (contestant_id, number, new.content_hash, new.source, new.command,
                     new.runtime, new.files, new.bytes, str(VersionState.VALIDATING), now, now))
                assert cursor.lastrowid is not None
                version_id: int = cursor.lastrowid
            else:
                version_id = row[0]
            db.execute("INSERT INTO uploads (contestant_id, at, outcome, version_id) "
                       "VALUES (?, ?, ?, ?)", (contestant_id, now, outcome, version_id))
            version = self._version(db, version_id)
        assert version is not None
        return version, outcome

    def record_refused_upload(self, contestant_id: int, reason: str, now: float) -> None:
        """Record an upload that was refused (it counts against the rate limit)."""
        with self._transaction() as db:
            db.execute("INSERT INTO uploads (contestant_id, at, outcome, detail) "
                       "VALUES (?, ?, 'refused', ?)", (contestant_id, now, reason))

    def stored_hashes(self) -> set[str]:
        """The content hashes any version names (what ``bots/`` must keep)."""
        with self._lock:
            return {r[0] for r in self._db.execute("SELECT DISTINCT content_hash FROM versions")}

    # ------------------------------------------------------------------ versions
    def version(self, version_id: int) -> Version | None:
        with self._lock:
            return self._version(self._db, version_id)

    def versions_of(self, contestant_id: int) -> list[Version]:
        """A contestant's versions, newest first."""
        with self._lock:
            rows = self._db.execute(f"SELECT {_VERSION_COLUMNS} FROM versions WHERE "
                                    "contestant_id = ? ORDER BY number DESC",
                                    (contestant_id,)).fetchall()
        return [_version_row(r) for r in rows]

    def playing_versions(self, contestant_id: int, latest: int) -> list[Version]:
        """The versions of a contestant that play: the newest ``latest`` that are rated
        (the matchmaker's seam)."""
        with self._lock:
            rows = self._db.execute(f"SELECT {_VERSION_COLUMNS} FROM versions WHERE "
                                    "contestant_id = ? AND state = ? ORDER BY number DESC "
                                    "LIMIT ?", (contestant_id, str(VersionState.RATED),
                                                latest)).fetchall()
        return [_version_row(r) for r in rows]

    def set_state(self, version_id: int, state: VersionState, now: float,
                  reason: str | None = None, log: str | None = None) -> Version:
        """Move a version to ``state`` (only as ``versions.MOVES`` allows), with the reason
        and log excerpt its owner sees; ends any validation lease."""
        with self._transaction() as db:
            version = self._version(db, version_id)
            if version is None:
                raise StoreError(f"no version {version_id}")
            check_move(version.state, state, reason)
            db.execute("UPDATE versions SET state = ?, reason = ?, log = COALESCE(?, log), "
                       "state_at = ?, lease_until = NULL WHERE id = ?",
                       (str(state), reason, log, now, version_id))
            moved = self._version(db, version_id)
        assert moved is not None
        return moved

    # ------------------------------------------------------------------ validation queue
    def claim_validation(self, now: float, lease_s: float) -> Version | None:
        """The oldest version waiting for validation whose lease is free or expired, now
        leased until ``now + lease_s``; None when the queue is empty. A validator that dies
        leaves its lease to expire, and the version is claimed again: replayed, not lost."""
        with self._transaction() as db:
            row = db.execute("SELECT id FROM versions WHERE state = ? AND "
                             "(lease_until IS NULL OR lease_until <= ?) ORDER BY id LIMIT 1",
                             (str(VersionState.VALIDATING), now)).fetchone()
            if row is None:
                return None
            db.execute("UPDATE versions SET lease_until = ? WHERE id = ?",
                       (now + lease_s, row[0]))
            return self._version(db, row[0])

    def release_validation_leases(self) -> int:
        """End every validation lease (how many there were): for a service that holds the
        contest's lock at start, so every lease is a dead predecessor's and its validation is
        replayed now rather than when the lease runs out."""
        with self._transaction() as db:
            cursor = db.execute("UPDATE versions SET lease_until = NULL WHERE state = ? AND "
                                "lease_until IS NOT NULL", (str(VersionState.VALIDATING),))
        return cursor.rowcount

    def validation_queue(self) -> list[Version]:
        """Every version waiting for validation, oldest first."""
        with self._lock:
            rows = self._db.execute(f"SELECT {_VERSION_COLUMNS} FROM versions WHERE state = ? "
                                    "ORDER BY id", (str(VersionState.VALIDATING),)).fetchall()
        return [_version_row(r) for r in rows]

    # ------------------------------------------------------------------ faults
    def add_fault(self, version_id: int, reason: str, now: float, game: str | None = None
                  ) -> None:
        """Record a fault against a version (the game loop's seam)."""
        with self._transaction() as db:
            db.execute("INSERT INTO faults (version_id, at, game, reason) VALUES (?, ?, ?, ?)",
                       (version_id, now, game, reason))

    def faults_of(self, version_id: int, limit: int = 100) -> list[Fault]:
        """A version's latest faults, newest first."""
        with self._lock:
            rows = self._db.execute("SELECT at, game, reason FROM faults WHERE version_id = ? "
                                    "ORDER BY id DESC LIMIT ?", (version_id, limit)).fetchall()
        return [Fault(r[0], r[1], r[2]) for r in rows]

    # ------------------------------------------------------------------ board
    def standings(self) -> list[dict[str, Any]]:
        """The public board: one row per playing version, best first, as the ladder last
        published it (``board.py`` says what a row holds and the order); empty before the
        first refit."""
        with self._lock:
            row = self._db.execute("SELECT rows FROM board WHERE id = 1").fetchone()
        return [] if row is None else list(json.loads(row[0]))

    @staticmethod
    def _version(db: sqlite3.Connection, version_id: int) -> Version | None:
        row = db.execute(f"SELECT {_VERSION_COLUMNS} FROM versions WHERE id = ?",
                         (version_id,)).fetchone()
        return None if row is None else _version_row(row)


def _version_row(row: tuple[Any, ...]) -> Version:
    return Version(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8],
                   VersionState(row[9]), row[10], row[11], row[12], row[13])
