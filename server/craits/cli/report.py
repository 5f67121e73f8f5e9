"""``craits report TOURNAMENT_ID --html DIR``: a static HTML report of a stored tournament."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from craits.report.site import write_site
from craits.report.steps import ReplayMismatch
from craits.report.stored import ReportError

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
    add_db_option(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.set_defaults(func=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    """Write the site and say where it is."""
    progress = _quiet if args.quiet or not sys.stderr.isatty() else _progress
    try:
        db = database_path(args)
        with open_results(db, "read") as store:
            files = write_site(store, resolve_id(store, args.tournament, db), args.html, progress)
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


def _progress(done: int, total: int) -> None:
    print(f"\rgame pages: {done}/{total}", end="", file=sys.stderr, flush=True)


def _quiet(done: int, total: int) -> None:
    """No progress display."""
