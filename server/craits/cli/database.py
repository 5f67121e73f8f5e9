"""The results database of the commands that store or read tournaments: ``--db``, and opening it.

One place for the option and its default, so that ``tournament``, ``replay`` and ``report`` agree
on which file they mean, and for the one-line errors that say why a file cannot be used.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Final

from craits.tournament.store.database import OpenMode, Store, StoreError

from .common import UsageError

DEFAULT_DB: Final = Path("craits-results") / "tournaments.sqlite"


def add_db_option(parser: argparse.ArgumentParser) -> None:
    """``--db PATH`` (kept as typed: an empty one is an error, not the current directory)."""
    parser.add_argument("--db", metavar="PATH",
                        help=f"results database (default $CRAITS_DB or {DEFAULT_DB})")


def database_path(args: argparse.Namespace) -> Path:
    """``--db``, else ``$CRAITS_DB`` (an empty one counts as unset), else ``DEFAULT_DB``."""
    given: str | None = args.db
    if given is None:
        return Path(os.environ.get("CRAITS_DB") or DEFAULT_DB)
    if not given:
        raise UsageError("cannot open results database '': --db is empty; give a file name")
    return Path(given)


def open_results(db: Path, mode: OpenMode) -> Store:
    """The store at ``db``, opened as the command needs; a ``UsageError`` saying why when it
    cannot be used.

    Only ``craits tournament run`` creates a database (``create``); every other command needs one
    that exists, and those that only look at it (``read``) never change it.
    """
    if mode != "create" and not (db.exists() or db.is_symlink()):
        raise UsageError(f"no results database at {db}{_looked_in(db)}: a tournament is "
                         "stored under the directory it was run from; run this there, or point "
                         "--db (or $CRAITS_DB) at its file")
    try:
        return Store.open(db, mode=mode)
    except StoreError as exc:
        raise UsageError(f"cannot open results database {db}: {exc}") from None


def _looked_in(db: Path) -> str:
    """Where a relative path was looked for: the directory a user may not know they are in."""
    return "" if db.is_absolute() else f" (looked in {Path.cwd()})"
