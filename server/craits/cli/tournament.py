"""``craits tournament run|resume|list|show``: round robins of bot processes, stored in SQLite."""

from __future__ import annotations

import argparse
import csv
import dataclasses
import sys
from pathlib import Path
from typing import Any

from craits.referee import bridge
from craits.referee.launcher import LaunchError
from craits.tournament.botpool import BotPoolError
from craits.tournament.config import ConfigError, TournamentConfig, default_config, load_config
from craits.tournament.runner import RunError, bot_directory, run_tournament
from craits.tournament.sprt import SprtResult, match_verdict
from craits.tournament.standings import Standings
from craits.tournament.store import CSV_FIELDS, Store, StoreError, TournamentInfo

from .common import UsageError, print_json
from .database import DEFAULT_DB, add_db_option, database_path, open_results
from .live import LiveDisplay

DEMO_BOTS = ("greedy", "random", "lowcard")
DEMO_DEAL_SETS = 4


def register(subparsers: Any) -> None:
    """Add ``craits tournament`` and its subcommands."""
    parser = subparsers.add_parser(
        "tournament", help="run, resume and inspect tournaments",
        description="Round-robin tournaments with duplicate deals and ratings, stored in SQLite "
        f"(default {DEFAULT_DB}, or $CRAITS_DB, or --db).",
    )
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    run = sub.add_parser("run", help="create a tournament and play it",
                         description="Create a tournament from FILE.toml (see docs/tournaments.md)"
                         " or, without a file, a demo of the bundled bots; then play it.")
    run.add_argument("file", nargs="?", type=Path, help="tournament TOML (default: the demo)")
    _common(run)
    run.set_defaults(func=cmd_run)
    resume = sub.add_parser("resume", help="finish a tournament a killed run left unfinished")
    resume.add_argument("id", help="tournament id (see `craits tournament list`)")
    _common(resume)
    resume.set_defaults(func=cmd_resume)
    lst = sub.add_parser("list", help="list stored tournaments")
    add_db_option(lst)
    lst.add_argument("--json", action="store_true", help="print one JSON object")
    lst.set_defaults(func=cmd_list)
    show = sub.add_parser("show", help="standings of a stored tournament")
    show.add_argument("id")
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


def _bundled() -> list[str]:
    from craits.referee.launcher import bundled_bots

    return list(bundled_bots())


def demo_config() -> TournamentConfig:
    """The embedded demo: three bundled bots at tables of 3, four deal sets (12 games)."""
    bots = [b for b in DEMO_BOTS if b in _bundled()] or _bundled()
    config = default_config(bots, _bundled())
    return dataclasses.replace(config, name="demo", deal_sets=DEMO_DEAL_SETS)


def cmd_run(args: argparse.Namespace) -> int:
    """Create, then play."""
    try:
        config = load_config(args.file, _bundled()) if args.file else demo_config()
    except ConfigError as exc:
        raise UsageError(f"{args.file}: {exc}") from None
    except OSError as exc:
        raise UsageError(f"cannot read {args.file}: {exc.strerror}") from None
    db = database_path(args)
    with open_results(db, "create") as store:
        tid = store.create_tournament(config, workdir=Path.cwd())
        if not args.json:
            print(f"tournament {tid}: {config.name}, {store.tournament(tid).total} games "
                  f"(database {db})", file=sys.stderr)
        return _play(store, tid, db, args)


def cmd_resume(args: argparse.Namespace) -> int:
    """Play what is left."""
    db = database_path(args)
    with open_results(db, "write") as store:
        info = _stored(store, args.id, db)
        _check_runnable(store, info)
        if not args.json:
            print(f"resuming tournament {args.id}: {info.jobs.get('done', 0)}/{info.total} "
                  "games already played", file=sys.stderr)
        return _play(store, args.id, db, args)


def _check_runnable(store: Store, info: TournamentInfo) -> None:
    """Refuse a tournament that cannot be played as stored before saying anything else."""
    try:
        bot_directory(info, store.config(info.id))
    except RunError as exc:
        raise UsageError(str(exc)) from None


def _play(store: Store, tid: str, db: Path, args: argparse.Namespace) -> int:
    display = LiveDisplay(quiet=args.quiet or args.json)
    logs = db.parent / "logs" / tid
    try:
        bridge.run(run_tournament, store, tid, logs, display)
    except RunError as exc:  # refused before anything changed
        raise UsageError(str(exc)) from None
    except LaunchError as exc:  # the stored configuration names a bot that cannot start
        store.set_status(tid, "paused")
        raise UsageError(f"{exc}; fix the bot in the configuration and run it again") from None
    except BotPoolError as exc:  # a bot did not connect: may work on another try
        store.set_status(tid, "paused")
        raise UsageError(f"{exc}; resume with `craits tournament resume {tid}`") from None
    except KeyboardInterrupt:
        store.set_status(tid, "paused")
        print(f"\ninterrupted; resume with `craits tournament resume {tid}`", file=sys.stderr)
        return 130
    display.close()
    _print_standings(store, tid, args.json)
    return 0


def _stored(store: Store, tid: str, db: Path) -> TournamentInfo:
    """The tournament ``tid`` names, or a usage error pointing at ``craits tournament list``."""
    try:
        return store.tournament(tid)
    except StoreError as exc:
        raise UsageError(f"{exc} in {db} (see `craits tournament list`)") from None


def cmd_list(args: argparse.Namespace) -> int:
    """One line per tournament."""
    db = database_path(args)
    with open_results(db, "read") as store:
        infos = store.tournaments()
    if args.json:
        print_json({"tournaments": [
            {"id": i.id, "name": i.name, "seed": i.seed, "created": i.created,
             "status": i.status, "games": i.total, "done": i.jobs.get("done", 0)}
            for i in infos]})
        return 0
    if not infos:
        print(f"no tournaments in {db}")
    for i in infos:
        print(f"{i.id}  {i.status:<9} {i.jobs.get('done', 0):>5}/{i.total:<5} "
              f"{i.created}  {i.name}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    """Standings (or every game as CSV) of one tournament."""
    db = database_path(args)
    with open_results(db, "read") as store:
        info = _stored(store, args.id, db)
        if args.csv:
            writer = csv.DictWriter(sys.stdout, fieldnames=list(CSV_FIELDS))
            writer.writeheader()
            writer.writerows(store.export_rows(args.id))
            return 0
        if not args.json:
            print(f"tournament {info.id}: {info.name}, {info.status}, "
                  f"{info.jobs.get('done', 0)}/{info.total} games")
        _print_standings(store, args.id, args.json)
    return 0


def _print_standings(store: Store, tid: str, as_json: bool) -> None:
    standings = store.standings(tid)
    config = store.config(tid)
    verdict = match_verdict(config, store.results(tid)) if config.mode == "match" else None
    if as_json:
        extra = {"sprt": dataclasses.asdict(verdict)} if verdict else {}
        print_json({"tournament": tid, **standings.to_dict(), **extra})
        return
    print(format_standings(standings))
    if verdict is not None:
        print(format_verdict(verdict, *config.bot_names[:2]))


def format_verdict(v: SprtResult, a: str, b: str) -> str:
    """One line on the A-vs-B sequential test."""
    said = {"H1": f"accept H1: {a} is stronger than {b}",
            "H0": f"accept H0: {a} is not stronger than {b}", "continue": "undecided so far"}
    return (f"SPRT {a} vs {b}: {said[v.decision]}; LLR {v.llr:+.2f} in [{v.lower:+.2f}, "
            f"{v.upper:+.2f}] after {v.deal_sets} deal sets ({v.wins}-{v.draws}-{v.losses}), "
            f"{v.elo:+.0f} Elo")


def format_standings(s: Standings) -> str:
    """The final table: rank, bot, rating ± CI, games, mean points, wins, strikes."""
    pct = round(s.confidence * 100)
    lines = [
        f"{s.games} games in {s.deal_sets} deal sets; ratings: Bradley-Terry on the Elo scale, "
        f"{pct}% intervals from {s.resamples} bootstrap resamples of deal sets",
        f"{'rank':>4}  {'bot':<20} {'rating':>7} {f'{pct}% interval':>17} {'games':>6} "
        f"{'mean pts':>9} {'wins':>5} {'strikes':>7}",
    ]
    for r in s.rows:
        interval = f"[{r.low:+.0f}, {r.high:+.0f}]"
        lines.append(
            f"{r.rank:>4}  {r.bot:<20} {r.rating:>+7.0f} {interval:>17} {r.stats.games:>6} "
            f"{r.stats.mean_points:>9.1f} {r.stats.wins:>5} {r.stats.strikes:>7}"
        )
    return "\n".join(lines)
