"""``craits contest``: set up a contest, add contestants, serve it, and (as a contestant)
submit bots and follow them (docs/contests.md).

The organiser's commands (``init``, ``add``, ``serve``) work on the contest's directory; the
contestant's (``submit``, ``status``, ``standings``) talk to a running server over HTTP, with the
token from ``--token`` or ``CRAITS_CONTEST_TOKEN`` (an environment variable keeps it out of the
shell history and ``ps``).
"""

from __future__ import annotations

import argparse
import os
import ssl
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import trio

from craits.contest.board import board_line
from craits.contest.client import ClientError, ContestClient, payload_for
from craits.contest.config import CONFIG_NAME, load_contest_config
from craits.contest.service import Listen, open_contest, serve_contest
from craits.contest.store import DB_NAME, ContestStore, StoreError
from craits.contest.template import contest_toml
from craits.contest.tokens import new_token, token_digest
from craits.contest.verdicts import verdict_line
from craits.exception_groups import sole_exception
from craits.referee import bridge
from craits.tournament.plan.tomlreader import ConfigError
from craits.tournament.run.lease import LeaseError
from craits.tournament.run.ray_pool import RayError

from .common import UsageError, int_range, port, print_json
from .contest_admin import register_admin
from .ray_options import ray_cluster

DEFAULT_PORT = 8470
SERVER_ENV, TOKEN_ENV = "CRAITS_CONTEST_SERVER", "CRAITS_CONTEST_TOKEN"
CA_ENV = "CRAITS_TLS_CA"


def register(subparsers: Any) -> None:
    """Add ``craits contest`` and its subcommands."""
    parser = subparsers.add_parser(
        "contest", help="a contest that runs itself: uploads, versions, a board",
        description="Run a contest (init, add, serve) or take part in one (submit, status, "
        "standings). docs/contests.md is the guide.")
    sub = parser.add_subparsers(dest="contest_command", metavar="SUBCOMMAND", required=True)

    init = sub.add_parser("init", help="create a contest directory with a commented "
                          f"{CONFIG_NAME}", description=f"Write DIR/{CONFIG_NAME} with every "
                          "setting at its default and a comment saying what it does; edit it, "
                          "then add contestants and serve.")
    init.add_argument("dir", type=Path, metavar="DIR")
    init.add_argument("--name", help="the contest's name (default: DIR's name)")
    init.set_defaults(func=_init)

    add = sub.add_parser("add", help="add a contestant and print their token (once)",
                         description="Add a contestant; their token is printed once and "
                         "stored only as a SHA-256 digest, so give it to them now (a lost "
                         "token cannot be shown again).")
    add.add_argument("name", metavar="NAME", help="the contestant's name on the board")
    add.add_argument("--dir", type=Path, default=Path("."), help="the contest directory "
                     "(default: the current one)")
    add.add_argument("--json", action="store_true", help='print {"id", "name", "token"}')
    add.set_defaults(func=_add)

    serve = sub.add_parser("serve", help="run the contest: its HTTP API, validation, the ladder",
                           description="Serve the contest in DIR: the HTTP JSON API "
                           "(/openapi.json describes it), the validation of new versions and "
                           "the ladder that plays them and fills the board. The URL is "
                           "printed on stderr once it listens; Ctrl-C stops. Safe to kill at "
                           "any moment: start it again and nothing is lost.")
    serve.add_argument("dir", type=Path, metavar="DIR")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1; 0.0.0.0 for every "
                       "interface: then use TLS)")
    serve.add_argument("--port", type=port, default=DEFAULT_PORT,
                       help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")
    serve.add_argument("--tls-cert", type=Path, metavar="PEM",
                       help="serve HTTPS with this certificate (chain), PEM")
    serve.add_argument("--tls-key", type=Path, metavar="PEM", help="its private key, PEM")
    serve.add_argument("--workers", type=int_range(0, 64), default=None, metavar="N",
                       help="play N ladder tables at once, each in a worker process of its own "
                            "(default 1; 0 plays one table at a time inside the web server's "
                            "own process); with --ray, N actors on the cluster (default: one "
                            "per CPU of the cluster)")
    serve.add_argument("--ray", metavar="ADDRESS",
                       help="play the ladder's tables on the Ray cluster whose head is at "
                            "ADDRESS (HOST:PORT, or auto), each table in an actor with its own "
                            "referee and sandboxed bots; this process keeps the database and "
                            "records every game, and ships the versions' files to the nodes "
                            "itself. Every node needs craits-arena[ray] and bubblewrap "
                            "(docs/contests.md)")
    serve.add_argument("--api-only", action="store_true",
                       help="serve the API alone: no validation and no ladder (uploads wait, "
                            "validating, for a serve that plays)")
    serve.set_defaults(func=_serve)

    submit = sub.add_parser("submit", help="upload a bot: a directory, an archive or one file",
                            description="Upload a bot as a new version: a directory with "
                            "craits-bot.toml (packed as a tar.gz), an archive, or a single .py "
                            "or .js file. The same content twice is the same version.")
    _client_options(submit, token=True)
    submit.add_argument("path", type=Path, metavar="DIR_OR_FILE")
    submit.set_defaults(func=_submit)

    status = sub.add_parser("status", help="your versions and their states",
                            description="Your versions, newest first: validating, rejected "
                            "(with the reason), rated or suspended.")
    _client_options(status, token=True)
    status.set_defaults(func=_status)

    standings = sub.add_parser("standings", help="the public board",
                               description="The contest's board (empty until games are "
                               "played).")
    _client_options(standings, token=False)
    standings.set_defaults(func=_standings)
    register_admin(sub)


def _client_options(parser: argparse.ArgumentParser, token: bool) -> None:
    parser.add_argument("--server", default=os.environ.get(SERVER_ENV),
                        help=f"the contest's URL, e.g. http://127.0.0.1:{DEFAULT_PORT} "
                        f"(default: ${SERVER_ENV})")
    if token:
        parser.add_argument("--token", default=None,
                            help=f"your contest token (default: ${TOKEN_ENV})")
    parser.add_argument("--ca", type=Path, default=os.environ.get(CA_ENV), metavar="PEM",
                        help="a CA certificate to trust for an https:// server whose "
                        f"certificate a public CA did not sign (default: ${CA_ENV})")
    parser.add_argument("--json", action="store_true", help="print the server's JSON answer")


def _client(args: argparse.Namespace, token: bool) -> ContestClient:
    if not args.server:
        raise UsageError(f"give --server URL (or set {SERVER_ENV})")
    secret = None
    if token:
        secret = args.token or os.environ.get(TOKEN_ENV)
        if not secret:
            raise UsageError(f"give --token T (or set {TOKEN_ENV}): the token the organiser "
                             "gave you")
    try:
        return ContestClient(args.server, secret, Path(args.ca) if args.ca else None)
    except ClientError as exc:
        raise UsageError(str(exc)) from None


def _failed(exc: Exception) -> int:
    print(f"craits: error: {exc}", file=sys.stderr)
    return 1


def _init(args: argparse.Namespace) -> int:
    directory: Path = args.dir
    path = directory / CONFIG_NAME
    if path.exists():
        raise UsageError(f"{path} exists already; edit it, or init another directory")
    name = args.name or directory.resolve().name or "Craits contest"
    if not name.isprintable():
        raise UsageError("--name: give one line of printable text")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        path.write_text(contest_toml(name), encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    print(f"wrote {path}; next: edit it, then `craits contest add NAME --dir {directory}` "
          f"for each contestant and `craits contest serve {directory}`")
    return 0


def _add(args: argparse.Namespace) -> int:
    directory: Path = args.dir
    try:
        config = load_contest_config(directory)
        store = ContestStore.open(directory / DB_NAME)
    except (ConfigError, StoreError) as exc:
        raise UsageError(str(exc)) from None
    try:
        if store.contestant_count() >= config.max_contestants:
            raise UsageError(f"the contest is full (max_contestants = {config.max_contestants} "
                             f"in {directory / CONFIG_NAME})")
        name = args.name.strip()
        if not 1 <= len(name) <= 64 or not name.isprintable():
            raise UsageError("NAME: 1 to 64 printable characters")
        token = new_token()
        try:
            contestant = store.add_contestant(name, token_digest(token), time.time())
        except StoreError as exc:
            raise UsageError(str(exc)) from None
    finally:
        store.close()
    if args.json:
        print_json({"id": contestant.id, "name": contestant.name, "token": token})
    else:
        print(f"added {contestant.name!r}; their token (shown only now, give it to them):")
        print(token)
    return 0


def _trio_run(async_fn: Callable[..., Awaitable[None]], *args: Any) -> None:
    """``trio.run`` as ``bridge.run`` runs trio: Ctrl-C lands only at a checkpoint."""
    trio.run(async_fn, *args, restrict_keyboard_interrupt_to_checkpoints=True)


def _serve(args: argparse.Namespace) -> int:
    cluster = None
    workers = 1 if args.workers is None else args.workers
    if args.ray is not None:
        if args.workers == 0:
            raise UsageError("--workers 0 plays the tables in this process, not on a Ray "
                             "cluster: give --workers N of at least 1 with --ray, or leave it "
                             "out (one actor per CPU of the cluster)")
        if args.api_only:
            raise UsageError("--api-only plays no games: leave out --ray")
        cluster = ray_cluster(args.ray)
        workers = args.workers
    listen = Listen(args.host, args.port, *_tls(args))
    try:
        contest = open_contest(args.dir)
    except (ConfigError, StoreError) as exc:
        raise UsageError(str(exc)) from None

    def announce(binds: list[str]) -> None:
        for url in binds:
            print(f"craits contest: serving {contest.config.name!r} at {url} (Ctrl-C stops)",
                  file=sys.stderr, flush=True)

    try:
        try:
            # Only a ladder played in this process (--workers 0) serves gRPC here, which needs
            # an asyncio loop hosting trio (bridge.run); otherwise the referees are in the
            # table workers, the Ray actors and validation's children, and trio runs alone:
            # no hand-off between the two loops on each of the pages' wake-ups.
            runner = bridge.run if workers == 0 and not args.api_only else _trio_run
            runner(serve_contest, contest, listen, announce, not args.api_only, workers, cluster)
        except BaseExceptionGroup as group:  # the server's nurseries wrap a lone failure
            raise sole_exception(group) from None
    except (LeaseError, RayError) as exc:  # RayError: the cluster cannot play (raytables)
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}; "
                         "try another --port (0 picks a free one) or --host") from None
    finally:
        contest.store.close()
    return 0


def _tls(args: argparse.Namespace) -> tuple[Path | None, Path | None]:
    cert, key = args.tls_cert, args.tls_key
    if (cert is None) != (key is None):
        raise UsageError("give both --tls-cert and --tls-key, or neither")
    if cert is not None:
        try:
            ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(cert, key)
        except (OSError, ssl.SSLError) as exc:
            raise UsageError(f"bad --tls-cert/--tls-key: {exc}") from None
    return cert, key


def _submit(args: argparse.Namespace) -> int:
    try:
        payload = payload_for(args.path)
        with _client(args, token=True) as client:
            answer = client.submit(payload)
    except ClientError as exc:
        return _failed(exc)
    if args.json:
        print_json(answer)
    else:
        print(answer.get("message", answer))
    return 0


def _status(args: argparse.Namespace) -> int:
    try:
        with _client(args, token=True) as client:
            me = client.me()
    except ClientError as exc:
        return _failed(exc)
    if args.json:
        print_json(me)
        return 0
    versions = me.get("versions", [])
    print(f"{me.get('name')}: {len(versions)} version{'s' * (len(versions) != 1)}")
    for v in versions:
        reason = f": {v['reason']}" if v.get("reason") else ""
        print(f"  v{v['number']:<4} {v['hash'][:12]}  {v['state']:<10} {v['source']}{reason}")
        history = v.get("history") or []
        if history:
            last = history[-1]
            interval = "" if last.get("low") is None else \
                f" [{last['low']:+.0f}, {last['high']:+.0f}]"
            print(f"         rating {last['rating']:+.0f}{interval}, rank {last['rank']} "
                  f"after {last['games']} games ({len(history)} history points shown)")
        if v.get("verdict"):
            print(f"         {verdict_line(v['verdict'])}")
    return 0


def _standings(args: argparse.Namespace) -> int:
    try:
        with _client(args, token=False) as client:
            board = client.standings()
    except ClientError as exc:
        return _failed(exc)
    if args.json:
        print_json(board)
        return 0
    rows = board.get("rows", [])
    print(f"{board.get('contest')} ({board.get('phase')})")
    if not rows:
        print("  no games played yet")
    for row in rows:
        print(f"  {board_line(row)}")
    return 0
