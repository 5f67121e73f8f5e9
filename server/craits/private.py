"""Files and directories only their owner may read: the results database, bot logs, anything
that may hold a token.

On a shared machine, every local user could otherwise read a tournament's database (0644 with
the usual umask), its logs and the tokens in its stored configuration. New files are created
0600 and new directories 0700; SQLite gives a database's ``-wal`` and ``-shm`` files the mode of
the database itself. What already exists keeps the mode its owner gave it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

FILE_MODE: Final = 0o600
DIR_MODE: Final = 0o700


def make_dirs(path: Path) -> None:
    """``mkdir -p`` where every directory it makes is the owner's only (``OSError`` as
    ``Path.mkdir``)."""
    missing = [p for p in (path, *path.parents) if not p.exists()]
    for directory in reversed(missing):
        directory.mkdir(mode=DIR_MODE, exist_ok=True)
    if not missing and not path.is_dir():
        path.mkdir(exist_ok=True)  # raises FileExistsError, as mkdir would


def create_file(path: Path) -> None:
    """Make ``path`` an empty owner-only file unless it exists (``OSError`` as ``open``)."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE))


def open_append(path: Path) -> int:
    """A descriptor appending to ``path``, creating it owner-only if missing."""
    return os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
