"""``craits tournament run|resume|list|show``: round robins of bot processes, stored in SQLite."""

from __future__ import annotations

import argparse
import csv
import os
import sys
from pathlib import Path
from typing import Any

from rich.text import Text

from craits.referee.bridge import DEFAULT_HOST
from craits.tournament.store.database import CSV_FIELDS

from .common import int_range, port, print_json
from .database import DEFAULT_DB, add_db_option, database_path, open_results
from .ray_options import add_ray_options
from .standings_text import print_standings, stored, verdict_of
from .tables import console, tournaments_table
from .tls import add_tls_options
from .tournament_flags import add_tournament_flags
from .tournament_play import cmd_resume, cmd_run
from .tournament_web import add_web_options


def register(subparsers: Any) -> None:
    """Add ``craits tournament`` and its subcommands."""
    parser = subparsers.add_parser(
        "tournament", help="run, resume and inspect tournaments",
        description="Round-robin tournaments with duplicate deals and ratings, stored in SQLite "
        f"(default {DEFAULT_DB}, or $CRAITS_DB, or --db).",
    )
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    run = sub.add_parser(
        "run", help="create a tournament and play it",
        description="Create a tournament from FILE.toml (see docs/tournaments.md), from flags "
        "(craits tournament run --bot greedy --bot 'python my_bot.py' --deal-sets 20), from both "
        "(the flags override the file) or, with neither, a demo of the bundled bots; then play "
        "it.")
    run.add_argument("file", nargs="?", type=Path, help="tournament TOML (default: the demo)")
    _common(run)
    add_tournament_flags(run)
    run.set_defaults(func=cmd_run)
    resume = sub.add_parser("resume", help="finish a tournament a killed run left unfinished")
    resume.add_argument("id", help="tournament id or a unique prefix of it "
                        "(see `craits tournament list`)")
    _common(resume)
    resume.set_defaults(func=cmd_resume)
    lst = sub.add_parser("list", help="list stored tournaments")
    add_db_option(lst)
    lst.add_argument("--json", action="store_true", help="print one JSON object")
    lst.set_defaults(func=cmd_list)
    show = sub.add_parser("show", help="standings of a stored tournament")
    show.add_argument("id", help="tournament id or a unique prefix of it")
    add_db_option(show)
    fmt = show.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="standings as one JSON object")
    fmt.add_argument("--csv", action="store_true", help="every game seat by seat, as CSV")
    show.set_defaults(func=cmd_show)


def _common(parser: argparse.ArgumentParser) -> None:
    add_db_option(parser)
    parser.add_argument("--json", action="store_true",
                        help="print the final standings as one JSON object (no live table)")
    parser.add_argument("--quiet", action="store_true", help="no live progress")
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help=f"address the referee listens on ({DEFAULT_HOST}); remote bots on "
                        "other machines need an address they can reach, e.g. 0.0.0.0")
    add_tls_options(parser)
    parser.add_argument("--port", type=port, default=0,
                        help="port the referee listens on (0, the default, picks a free one); "
                        "fix one so remote bots can be told CRAITS_SERVER in advance")
    parser.add_argument("--workers", type=int_range(1, 1024), default=None, metavar="N",
                        help="worker processes that play tables, each with its own bots "
                        f"(default: one per core, here {os.cpu_count() or 1}, but fewer for a "
                        "small tournament); 1 plays in this process; a tournament with remote "
                        "bots, --host or --port uses 1; with --ray: worker actors on the "
                        "cluster (default: one per CPU it has)")
    add_ray_options(parser)
    add_web_options(parser, "the tournament's pages while it plays: standings updating as "
                    "games finish, each finished game's viewer, live games (public moves only)")


def cmd_list(args: argparse.Namespace) -> int:
    """One row per tournament, under a header, with the database it looked in."""
    db = database_path(args)
    with open_results(db, "read") as store:
        infos = store.tournaments()
        verdicts = {i.id: verdict_of(store, i.id) for i in infos}
    if args.json:
        print_json({"tournaments": [
            {"id": i.id, "name": i.name, "seed": i.seed, "created": i.created,
             "status": i.status, "games": i.total, "done": i.jobs.get("done", 0)}
            for i in infos]})
        return 0
    out = console()
    if not infos:
        out.print(Text(f"no tournaments in {db}"), soft_wrap=True)
        return 0
    out.print(tournaments_table(infos, verdicts))
    out.print(Text(f"database: {db}; an id can be shortened to any prefix no other id shares"),
              soft_wrap=True)  # a path is never broken across lines
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    """Standings (or every game as CSV) of one tournament."""
    db = database_path(args)
    with open_results(db, "read") as store:
        info = stored(store, args.id, db)
        if args.csv:
            writer = csv.DictWriter(sys.stdout, fieldnames=list(CSV_FIELDS))
            writer.writeheader()
            writer.writerows(store.export_rows(info.id))
            return 0
        if not args.json:
            print(f"tournament {info.id}: {info.name}, {info.status}, "
                  f"{info.jobs.get('done', 0)}/{info.total} games")
        print_standings(store, info.id, args.json)
    return 0
