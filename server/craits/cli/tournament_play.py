"""``craits tournament run`` and ``resume``: playing a stored tournament, and every way it stops."""

from __future__ import annotations

import argparse
import shlex
import sqlite3
import sys
from pathlib import Path
from typing import Any

from craits import private
from craits.engine.state import MIN_PLAYERS
from craits.hosting.launcher import LaunchError
from craits.referee import bridge
from craits.tournament.plan.config import ConfigError, TournamentConfig, fairness_notes
from craits.tournament.run.botpool import (
    BotPoolError,
    BotStartError,
    check_launchable,
    isolation_notes,
    isolation_problem,
)
from craits.tournament.run.lease import LeaseError, lease
from craits.tournament.run.ray_pool import RayError
from craits.tournament.run.runner import RunError, RunOptions, bot_directory, run_tournament
from craits.tournament.store.database import Store, TournamentInfo

from .common import UsageError
from .database import DEFAULT_DB, database_path, open_results
from .live import LiveDisplay
from .ray_options import ray_from_args, ray_words
from .standings_text import games_per_deal_set, print_standings, stored
from .tls import tls_from_args
from .tournament_flags import read_table, with_flags
from .tournament_web import WebListenError, check_web_options, run_with_web, say, web_run

DEMO_BOTS = ("greedy", "random", "lowcard")
DEMO_DEAL_SETS = 6
"""Enough for the standings to show 95% intervals for three bots (docs/ratings.md)."""


def _bundled() -> list[str]:
    from craits.hosting.launcher import bundled_bots

    return list(bundled_bots())


def demo_table(bots: int = len(DEMO_BOTS)) -> dict[str, Any]:
    """The embedded demo: three bundled bots at tables of 3, six deal sets (18 games); with
    other bots given on the command line, tables as large as they fill (at most 3)."""
    names = [b for b in DEMO_BOTS if b in _bundled()] or _bundled()
    return {"name": "demo", "deal_sets": DEMO_DEAL_SETS,
            "table_size": max(MIN_PLAYERS, min(len(DEMO_BOTS), bots)),
            "bots": [{"name": name} for name in names]}


def run_config(args: argparse.Namespace) -> TournamentConfig:
    """The tournament to create: the file (or the demo), with the command line's flags over it."""
    demo = demo_table(len(args.bots) or len(DEMO_BOTS))
    if args.bots and args.file is None:
        demo["name"] = "command line"
    table = read_table(args.file, demo)
    return with_flags(table, args, _bundled(), str(args.file or "command line"))


def cmd_run(args: argparse.Namespace) -> int:
    """Create, then play."""
    check_web_options(args)
    args.tls = tls_from_args(args)
    args.ray_cluster = ray_from_args(args)
    try:
        config = run_config(args)
        check_launchable(config.bots)
    except ConfigError as exc:  # it names the file
        raise UsageError(str(exc)) from None
    except LaunchError as exc:
        raise UsageError(f"{exc}; {_fix_advice(args)}") from None
    problem = isolation_problem(config, Path.cwd())
    if problem is not None:
        raise UsageError(problem)
    db = database_path(args)
    with open_results(db, "create") as store:
        make_log_dir(log_dir(db))
        tid = store.create_tournament(config, workdir=Path.cwd())
        if not args.json:
            print(f"tournament {tid}: {config.name}, {store.tournament(tid).total} games "
                  f"(database {db})", file=sys.stderr)
            for note in [*fairness_notes(config), *isolation_notes(config)]:
                print(f"note: {note}", file=sys.stderr)
        return _play(store, tid, db, args, fresh=True)


def cmd_resume(args: argparse.Namespace) -> int:
    """Play what is left."""
    check_web_options(args)
    args.tls = tls_from_args(args)
    args.ray_cluster = ray_from_args(args)
    db = database_path(args)
    with open_results(db, "write") as store:
        info = stored(store, args.id, db)
        args.id = info.id  # a prefix names it; hints and logs use the whole id
        if not (info.jobs["pending"] or info.jobs["running"]):
            return _already_finished(store, info, args.json)
        _check_runnable(store, info, db)
        if not args.json:
            print(f"resuming tournament {info.id}: {info.jobs.get('done', 0)}/{info.total} "
                  "games already played", file=sys.stderr)
        return _play(store, info.id, db, args)


def _already_finished(store: Store, info: TournamentInfo, as_json: bool) -> int:
    """Nothing is left to play: say so and show the standings, as ``show`` would.

    A run killed after its last game left the tournament "running"; it is finished now.
    """
    if info.status != "finished":
        store.set_status(info.id, "finished")
    skipped = info.jobs["skipped"]
    note = f", {skipped} skipped once the SPRT decided" if skipped else ""
    if not as_json:
        print(f"tournament {info.id} is already finished ({info.jobs['done']} games "
              f"played{note}): nothing to resume", file=sys.stderr)
    print_standings(store, info.id, as_json)
    return 0


def _check_runnable(store: Store, info: TournamentInfo, db: Path) -> None:
    """Refuse a tournament that cannot be played as stored, or that another process is running,
    before saying anything else (the runner checks both again, for good)."""
    make_log_dir(log_dir(db, info.id))
    try:
        bot_directory(info, store.config(info.id))
        with lease(log_dir(db, info.id), info.id):
            pass
    except (RunError, LeaseError) as exc:
        raise UsageError(str(exc)) from None


def _dropped_if_new(store: Store, tid: str, fresh: bool) -> bool:
    """Drop a tournament this ``run`` just created, if no game was played: a failure before
    the first game (a bot that cannot start, a port in use) would only repeat on a resume,
    while running again makes it anew. True if it was dropped."""
    if fresh and not store.tournament(tid).jobs["done"]:
        store.delete_tournament(tid)
        return True
    return False


def _cannot_start(store: Store, tid: str, db: Path, args: argparse.Namespace, fresh: bool,
                  exc: Exception) -> str:
    """What to do about a bot that cannot start. Its command is stored with the tournament, so
    a plain resume would fail the same way: a new tournament is dropped (the fixed
    configuration makes a new one); any other waits, paused, for what the bot needs to be fixed
    where it runs."""
    if _dropped_if_new(store, tid, fresh):
        return f"{exc}; {_fix_advice(args)} (no tournament was kept)"
    where = store.tournament(tid).workdir or Path.cwd()
    return (f"{exc}; tournament {tid} is paused, and its bots start as stored, in {where}: fix "
            f"what the bot needs there, then `{resume_command(tid, db, args)}`")


def _cannot_listen(store: Store, tid: str, db: Path, args: argparse.Namespace, fresh: bool,
                   exc: bridge.ListenError) -> str:
    """The referee could not listen where asked: a new tournament is dropped, as for a bot
    that cannot start; any other stays paused, for a resume on another port (the hint leaves
    the port out, so the resume picks a free one)."""
    another = "another --port (or 0)" if exc.option == "--port" else "another --host"
    if _dropped_if_new(store, tid, fresh):
        return f"{exc}; choose {another} and run again (no tournament was kept)"
    if exc.option == "--host":
        return f"{exc}; tournament {tid} is paused: resume it with {another}"
    return (f"{exc}; tournament {tid} is paused: resume it on {another}: "
            f"`{resume_command(tid, db, args, port=0)}`")


def _fix_advice(args: argparse.Namespace) -> str:
    """How to fix a bot of a new tournament: its entry in the file, then ``run`` again."""
    if args.bots:
        where = "its --bot SPEC"
    else:
        where = f"its [[bots]] entry in {args.file}" if args.file else "the bundled bots"
    return f"fix the bot or {where}, then run the tournament again"


def resume_command(tid: str, db: Path, args: argparse.Namespace, port: int | None = None
                   ) -> str:
    """The command that resumes ``tid``, with ``--db`` unless ``db`` is the default, and the
    address this run listened on unless it is the default (``port`` overrides the run's): the
    hint must work as typed, also in a shell without this one's ``$CRAITS_DB``, and remote bots
    told the address must find it."""
    words = ["craits", "tournament", "resume", tid]
    if db != DEFAULT_DB:
        words += ["--db", str(db)]
    if args.host != bridge.DEFAULT_HOST:
        words += ["--host", args.host]
    port = args.port if port is None else port
    if port:
        words += ["--port", str(port)]
    tls = getattr(args, "tls", None)
    if tls is not None:  # remote bots dial TLS: the resumed run must serve it too
        words += ["--tls-cert", str(tls.cert), "--tls-key", str(tls.key)]
        if tls.ca is not None:  # so that it prints the same CRAITS_TLS_CA for remote bots
            words += ["--tls-ca", str(tls.ca)]
    return shlex.join(words + ray_words(args))


def store_files(db: Path) -> tuple[Path, ...]:
    """The database and SQLite's files beside it: what no sandboxed bot may see."""
    path = db.resolve()
    return (path, *(path.with_name(path.name + suffix) for suffix in ("-wal", "-shm")))


def log_dir(db: Path, tid: str = "") -> Path:
    """Where the bots' stderr logs go: ``logs/ID/`` beside the database file itself.

    The path is resolved (links followed), so every path to one database names one log
    directory, and with it one runner's lock (``lease``): two resumes through a symlink and
    its target are refused like two through one path."""
    return db.resolve().parent / "logs" / tid


def make_log_dir(path: Path) -> None:
    """Make a log directory, or say why it cannot be made: before the tournament is created or
    set running, so that no failure to make it leaves a tournament "running"."""
    try:
        private.make_dirs(path)
    except OSError as exc:
        in_the_way = isinstance(exc, FileExistsError | NotADirectoryError)
        why = "a file is in the way" if in_the_way else exc.strerror
        raise UsageError(f"cannot create the bot log directory {path}: {why}") from None


def _play(store: Store, tid: str, db: Path, args: argparse.Namespace,
          fresh: bool = False) -> int:
    """Play the tournament (the runner marks it paused however the run stops early);
    ``fresh``: it was created by this command."""
    config = store.config(tid)
    names = (config.bot_names[0], config.bot_names[1]) if config.mode == "match" else None
    display = LiveDisplay(quiet=args.quiet or args.json, sprt_names=names,
                          games_per_deal_set=games_per_deal_set(config))
    make_log_dir(log_dir(db, tid))
    web = web_run(args)
    try:
        try:
            display.start()  # before the workers start, so that their stderr comes through it
            options = RunOptions(log_dir(db, tid), host=args.host, port=args.port,
                                 hidden=store_files(db), tls=args.tls, workers=args.workers,
                                 ray=args.ray_cluster)
            if web is None:
                bridge.run(run_tournament, store, tid, options, display)
            else:  # the pages beside the run (tournament_web)
                bridge.run(run_with_web, web, store, tid, options, display, say)
        finally:  # the live block stays; what follows starts on a fresh line below it
            display.close()
    except (RunError, LeaseError) as exc:  # refused before anything changed
        raise UsageError(str(exc)) from None
    except bridge.ListenError as exc:
        raise UsageError(_cannot_listen(store, tid, db, args, fresh, exc)) from None
    except RayError as exc:  # the cluster, not the tournament: it may be there later
        kept = ("no tournament was kept" if _dropped_if_new(store, tid, fresh)
                else f"resume with `{resume_command(tid, db, args)}`")
        raise UsageError(f"{exc}; {kept}") from None
    except (LaunchError, BotStartError) as exc:  # its stored command would fail again
        raise UsageError(_cannot_start(store, tid, db, args, fresh, exc)) from None
    except BotPoolError as exc:  # a remote bot late, or a bot that kept dying: try again later
        raise UsageError(f"{exc}; resume with `{resume_command(tid, db, args)}`") from None
    except WebListenError as exc:
        kept = ("no tournament was kept" if _dropped_if_new(store, tid, fresh)
                else f"tournament {tid} is paused")
        raise UsageError(f"{exc}; choose another --web PORT (or 0): {kept}") from None
    except KeyboardInterrupt:
        if web is None or not web.played:
            print(f"\ninterrupted; resume with `{resume_command(tid, db, args)}`",
                  file=sys.stderr)
            return 130
    except sqlite3.Error as exc:  # mid-run: the disk filled up, the file was taken away, ...
        print(f"craits: error: the results database {db} failed during the run: {exc}; the games"
              " recorded before it are kept (each is one transaction): fix that (e.g. free disk"
              f" space), then resume with `{resume_command(tid, db, args)}`", file=sys.stderr)
        return 1
    print_standings(store, tid, args.json)
    return 0
