"""What the HTML report may say about the organiser's machine: paths relative to the store.

Faults quote paths: a bot that died names its stderr log (``logs/ID/NAME.stderr.log`` beside
the results database, as an absolute path), a bot that failed to start may quote its command or
a traceback. A report is made to be published, and the organiser's directories (a user name, a
home directory, how the machine is laid out) are nobody else's business; a path under the
store's directory is shown relative to it, which is all a reader needs to find a log on the
organiser's side, and any other absolute path keeps only its last part. ``craits replay`` is
the organiser's own terminal and keeps the paths as they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Final

from craits.tournament.store.game_records import LoggedFault

from .stored import StoredGame

_ABSOLUTE: Final = re.compile(r"(?<![\w.~/-])/[^\s\"'`()<>\[\]{},;]+")
"""An absolute path in free text: a ``/`` not inside a word or relative path, up to a space or
a quoting or bracketing character (``foo/bar`` and ``1/2`` are not paths)."""


def store_roots(store_file: Path | None) -> tuple[str, ...]:
    """The store's directory as text, as given and with links resolved, longest first (the
    bots' log directory is made from the resolved one)."""
    if store_file is None:
        return ()
    roots = {str(store_file.absolute().parent), str(store_file.resolve().parent)}
    return tuple(sorted((r for r in roots if r != "/"), key=len, reverse=True))


def relative_paths(text: str, roots: Sequence[str]) -> str:
    """``text`` with every path under one of ``roots`` relative to it, and every other
    absolute path cut to ``…/`` and its last part."""
    for root in roots:
        text = text.replace(root + "/", "")
    return _ABSOLUTE.sub(_last_part, text)


def _last_part(match: re.Match[str]) -> str:
    """``…/`` and the path's last part; a full stop or colon that ends it stays after it."""
    path = match.group(0).rstrip(".:")
    tail = match.group(0)[len(path):]
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return f"…/{name}{tail}" if name else f"…{tail}"


def public_faults(faults: Iterable[LoggedFault], roots: Sequence[str]) -> tuple[LoggedFault, ...]:
    """Faults with their reason and detail as ``relative_paths`` gives them."""
    return tuple(replace(f, reason=relative_paths(f.reason, roots),
                         detail=relative_paths(f.detail, roots)) for f in faults)


def public_game(game: StoredGame, roots: Sequence[str]) -> StoredGame:
    """``game`` as a published page shows it: its faults without the organiser's paths."""
    return replace(game, faults=public_faults(game.faults, roots))
