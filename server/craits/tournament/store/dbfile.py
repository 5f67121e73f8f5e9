"""Opening the store's SQLite file, and never another program's.

``sqlite3.connect`` takes almost any path without complaint (a TOML file, a directory, another
program's database) and fails later, at the first statement, with a message that names neither
the file nor the fix; worse, ``PRAGMA journal_mode=WAL`` and the migrations would change another
program's database. So every file is checked before anything is written to it, and each way it
can be wrong becomes a ``StoreError`` with a plain reason.

The modes (``OpenMode``), one per kind of command:

- ``create`` (``craits tournament run``): makes the file and its directory if missing, switches
  on WAL, migrates;
- ``write`` (``resume``): the file must exist and be a store; WAL, migrations;
- ``read`` (``list``, ``show``, ``replay``, ``report``): the file must exist and be a store of any
  version up to this craits's; nothing is created, migrated or written (``PRAGMA query_only``),
  so looking at a results database never changes it, nor makes one where a path was mistyped.
  A store the user may read but not write opens too. SQLite reads a WAL file through a
  ``-shm`` file beside it, which it cannot make in a directory the user may not write, and
  leaves ``-wal`` and ``-shm`` files behind when it may not write the store itself; so such a
  store is opened ``immutable``, which needs neither. That is safe: no writer is at work on it,
  or its ``-wal`` file would be there (and then the store is opened as usual, or refused).

``create`` and ``write`` refuse a store the user may not write, and try a write (undone at once)
before anything else: SQLite opens such a file read-only without a word, and would fail only at
the first write, in the middle of a command.

A craits store says so in ``PRAGMA application_id`` (from schema version 3); an older one is
known by its version number and its tables. A file with tables but neither mark belongs to
someone else and is refused; an empty one becomes a new store, only in ``create`` mode.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path
from typing import Final, Literal

from craits import private

from .schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION, TABLES

SQLITE_READONLY: Final = 8
SQLITE_CANTOPEN: Final = 14
"""Primary result codes (``sqlite3.Error.sqlite_errorcode & 0xFF``)."""


PAGE_SIZE: Final = 16384
"""The page size of a new store. A game's row is about 3 KB (``records.py``): in SQLite's default
4 KB pages each row took a page of its own and a third of the file was empty; in 16 KB pages
five rows share one (``docs/benchmarks.md``). A store keeps the page size it was made with."""

OpenMode = Literal["create", "write", "read"]
OPEN_MODES: Final = ("create", "write", "read")


class StoreError(Exception):
    """The store cannot do what was asked (unknown tournament or job, newer schema, ...)."""


def open_connection(path: str | Path, synchronous: str, mode: OpenMode) -> sqlite3.Connection:
    """A connection to a checked store file, opened as ``mode`` says (module docstring);
    ``":memory:"`` for a throwaway one."""
    if str(path) == ":memory:":
        return _prepared(Path(path), _connect(":memory:"), synchronous, "create")
    path = Path(path)
    _check_path(path, mode)
    if mode == "read":
        return _open_reading(path)
    if path.exists() and not _writable(path):
        raise StoreError("no permission to write it or its directory")
    return _prepared(path, _connect_file(path, "rwc" if mode == "create" else "rw"),
                     synchronous, mode)


def _open_reading(path: Path) -> sqlite3.Connection:
    """A reading connection: ``immutable`` for a quiet store the user may not write (module
    docstring), else one that sees a running tournament's latest games."""
    quiet = not Path(f"{path}-wal").exists()
    options = "ro&immutable=1" if quiet and not _writable(path) else "rw"
    return _prepared(path, _connect_file(path, options), "", "read")


def _writable(path: Path) -> bool:
    """Whether this user may write the store and make its ``-wal`` and ``-shm`` files."""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK | os.X_OK)


def _prepared(path: Path, db: sqlite3.Connection, synchronous: str,
              mode: OpenMode) -> sqlite3.Connection:
    """``db`` made ready for ``mode``; closed if it cannot be, with SQLite's complaint made a
    ``StoreError``."""
    try:
        if mode == "read":
            _prepare_reading(db)
        else:
            _prepare(db, synchronous, mode)
    except BaseException as exc:
        db.close()
        if isinstance(exc, sqlite3.Error):
            raise StoreError(_reason(path, exc)) from None
        raise
    return db


def _check_path(path: Path, mode: OpenMode) -> None:
    """Refuse what cannot be a database file, and make the directory a new one goes in."""
    if path.is_dir():
        raise StoreError("it is a directory")
    if path.exists():
        return
    if mode != "create":
        raise StoreError("there is no such file")
    for parent in reversed(path.parents):
        if parent.exists() and not parent.is_dir():
            raise StoreError(f"{parent} is not a directory")
    try:
        private.make_dirs(path.parent)
    except OSError as exc:
        raise StoreError(f"cannot create the directory {path.parent}: {exc.strerror}") from None
    # Owner-only from the start (SQLite gives -wal and -shm the same mode); if it cannot be
    # made, SQLite says why in its own words (see _reason).
    with contextlib.suppress(OSError):
        private.create_file(path)


def _connect(target: str, uri: bool = False) -> sqlite3.Connection:
    db = sqlite3.connect(target, timeout=30.0, isolation_level=None, check_same_thread=False,
                         uri=uri)
    db.row_factory = sqlite3.Row
    return db


def _connect_file(path: Path, options: str) -> sqlite3.Connection:
    """Connect by URI (``mode=`` + ``options``), so that no character of the path is taken for
    an option."""
    try:
        return _connect(f"{path.absolute().as_uri()}?mode={options}", uri=True)
    except sqlite3.Error as exc:
        raise StoreError(_reason(path, exc)) from None


def _prepare(db: sqlite3.Connection, synchronous: str, mode: OpenMode) -> None:
    """Check whose file it is and that it can be written, then WAL, durability and the missing
    migrations."""
    version = identify(db, mode)
    if version == 0:
        db.execute(f"PRAGMA page_size={PAGE_SIZE}")  # only a new file: before anything is written
    _check_writable(db, version)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(f"PRAGMA synchronous={synchronous}")
    db.execute("PRAGMA foreign_keys=ON")
    _migrate(db, version)


def _prepare_reading(db: sqlite3.Connection) -> None:
    """Check whose file it is, then forbid every write: a reader takes the file as it is (any
    version up to ours: readers use only what version 1 has)."""
    identify(db, "read")
    db.execute("PRAGMA query_only=ON")


def identify(db: sqlite3.Connection, mode: OpenMode) -> int:
    """The store's schema version (0 for an empty file, in ``create`` mode only); ``StoreError``
    if it is not a store."""
    app = _pragma(db, "application_id")
    version = _pragma(db, "user_version")
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if app == APPLICATION_ID or (app == 0 and version >= 1 and tables >= TABLES):
        if version > SCHEMA_VERSION:
            raise StoreError(f"the store has schema version {version}; this craits knows "
                             f"{SCHEMA_VERSION}: upgrade craits")
        return version
    if app == 0 and version == 0 and not tables:
        if mode == "create":
            return 0
        raise StoreError("it is an empty file, not a craits results database")
    held = f"tables {', '.join(sorted(tables)[:5])}" if tables else f"application id {app}"
    raise StoreError(f"it is not a craits results database (it holds {held}); "
                     "craits leaves it alone")


def _check_writable(db: sqlite3.Connection, version: int) -> None:
    """Write the version it has and undo it: fails at once on a file opened read-only."""
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute(f"PRAGMA user_version={version}")
    finally:
        _rollback(db)


def _migrate(db: sqlite3.Connection, version: int) -> None:
    """Apply the missing migrations, each in one transaction with its version bump."""
    for number in range(version, SCHEMA_VERSION):
        db.execute("BEGIN IMMEDIATE")
        try:
            for step in MIGRATIONS[number]:
                if isinstance(step, str):
                    db.execute(step)
                else:
                    step(db)
            db.execute(f"PRAGMA user_version={number + 1}")
            db.execute("COMMIT")
        except BaseException:
            _rollback(db)
            raise


def _rollback(db: sqlite3.Connection) -> None:
    """Undo the open transaction, if SQLite has not already (it does after some errors)."""
    if db.in_transaction:
        db.execute("ROLLBACK")


def _pragma(db: sqlite3.Connection, name: str) -> int:
    value: int = db.execute(f"PRAGMA {name}").fetchone()[0]
    return value


def _code(exc: sqlite3.Error) -> int:
    """SQLite's primary result code of ``exc`` (0 when unknown)."""
    code: int = getattr(exc, "sqlite_errorcode", 0) or 0
    return code & 0xFF


def _reason(path: Path, exc: sqlite3.Error) -> str:
    """SQLite's complaint in the user's terms where it is vague."""
    if _code(exc) == SQLITE_CANTOPEN and not path.exists():
        return f"cannot create it in {path.parent} ({exc})"
    if _code(exc) == SQLITE_READONLY:
        return f"no permission to write it or its directory ({exc})"
    return str(exc)
