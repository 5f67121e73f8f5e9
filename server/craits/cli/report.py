"""``craits report TOURNAMENT_ID --html DIR``: a static HTML report of a stored tournament."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Collection
from pathlib import Path
from typing import Any, Final, cast

from craits.report.site import ALL_PAGES, write_site
from craits.report.steps import ReplayMismatch
from craits.report.stored import ReportError
from craits.tournament.store.database import Store

from .common import UsageError
from .database import add_db_option, database_path, open_results
from .standings_text import resolve_id


def register(subparsers: Any) -> None:
    """Add ``craits report``."""
    parser = subparsers.add_parser(
        "report", help="write a static HTML report of a stored tournament",
        description="Write standings, crosstable, LOS, a ratings plot and a replay viewer for "
        "every recorded game as static pages that open from disk (no server, no network). "
        "See docs/reports.md.",
    )
    parser.add_argument("tournament", metavar="TOURNAMENT_ID",
                        help="tournament id (see `craits tournament list`)")
    parser.add_argument("--html", type=Path, required=True, metavar="DIR",
                        help="directory to write index.html and games/ into (created if needed)")
    parser.add_argument("--games", type=game_selection, metavar="WHICH",
                        help="the games to write a replay viewer for: all, none, or numbers and "
                        "ranges like 0-99,512 (default: all when the tournament has at most "
                        f"{ALL_PAGES} recorded games, else none; viewers already in DIR stay "
                        "linked)")
    add_db_option(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.set_defaults(func=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    """Write the site and say where it is."""
    progress = _quiet if args.quiet or not sys.stderr.isatty() else _progress
    try:
        db = database_path(args)
        with open_results(db, "read") as store:
            tid = resolve_id(store, args.tournament, db)
            files = write_site(store, tid, args.html, progress, _games(args.games, store, tid),
                               _note)
    except ReplayMismatch as exc:
        print(f"craits: error: {exc}", file=sys.stderr)
        return 1
    except ReportError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot write the report to {args.html}: {exc}") from None
    if progress is _progress:
        print(file=sys.stderr)
    if not args.quiet:
        print(f"wrote {len(files)} files; open {files[0]}", file=sys.stderr)
    print(files[0])
    return 0


ALL: Final = "all"


def game_selection(text: str) -> frozenset[int] | str | None:
    """``--games``: ``all``, ``none`` (the empty set), or comma-separated numbers and ranges."""
    text = text.strip().lower()
    if text == ALL:
        return ALL
    if text == "none":
        return frozenset()
    chosen: set[int] = set()
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        try:
            low, high = int(first), int(last if dash else first)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{part.strip()!r} is not a game number or a range like 0-99") from None
        if low < 0 or high < low:
            raise argparse.ArgumentTypeError(f"{part.strip()!r}: a range goes from a number "
                                             "to a larger one, from 0")
        chosen.update(range(low, high + 1))
    return frozenset(chosen)


def _games(selection: frozenset[int] | str | None, store: Store,
           tournament: str) -> Collection[int] | None:
    """The games ``write_site`` is to write viewers for (``all`` is every recorded one)."""
    if selection == ALL:
        return [r.game_index for r in store.results(tournament)]
    return None if selection is None else cast(frozenset[int], selection)


def _note(text: str) -> None:
    """A note for the organiser (games held back), shown even with ``--quiet``: it says why
    the report lacks what was asked for."""
    print(f"craits: note: {text}", file=sys.stderr)


def _progress(done: int, total: int) -> None:
    print(f"\rgame pages: {done}/{total}", end="", file=sys.stderr, flush=True)


def _quiet(done: int, total: int) -> None:
    """No progress display."""
