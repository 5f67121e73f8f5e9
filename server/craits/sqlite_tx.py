"""One write transaction on a shared SQLite connection: the tournament store's and the contest
store's, written once.

``BEGIN IMMEDIATE`` takes the write lock up front, so a transaction never fails half-way on a
lock held by another process; a Python lock serialises the threads that share the connection;
anything raised inside rolls the whole transaction back (all or nothing, which is what makes a
kill -9 lose or repeat nothing).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def write_transaction(
    db: sqlite3.Connection, lock: threading.RLock
) -> Iterator[sqlite3.Connection]:
    """The connection inside one all-or-nothing write transaction, under ``lock``."""
    with lock:
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
