"""``craits tournament run|resume --web [HOST:]PORT``: the tournament's pages while it plays.

Wiring only, here at the top layer: the runner (``craits.tournament.run``) knows nothing of the
web, it is handed a ``GameWatch`` that feeds the live games; the pages
(``craits.contest.web.tournament``) know nothing of running, they read the store and the live
games; and this module starts Hypercorn (the contest service's settings) in the run's own trio
run, beside the tournament, in one nursery. The server is bound before the first game, so the
address is printed (on stderr: stdout keeps the standings, or ``--json``'s one object) before
anything is played, and a busy port stops the command before the tournament starts. When the
tournament ends the server stops with it, unless ``--web-linger`` keeps the pages up until
Ctrl-C (which then ends the command normally, with the standings).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace

import trio
from hypercorn.trio import serve
from starlette.applications import Starlette

from craits.contest.live import LiveGames
from craits.contest.service import Listen, hypercorn_config
from craits.contest.web.tournament import LiveRule, LiveWatch, tournament_app
from craits.exception_groups import sole_exception
from craits.tournament.run.runner import (
    ProgressHook,
    RunOptions,
    run_tournament,
)
from craits.tournament.store.database import Store

from .common import UsageError, port

RAY_NOTE = ("Live games are not shown for a run on a Ray cluster: its games are played by "
            "actors on the cluster and appear here once finished (standings and game pages).")


def web_address(text: str) -> Listen:
    """``[HOST:]PORT`` (an IPv6 host in brackets) as where to listen; the host defaults to
    this machine only."""
    host, sep, number = text.rpartition(":")
    if not sep:
        host, number = "127.0.0.1", text
    host = host.removeprefix("[").removesuffix("]") or "127.0.0.1"
    return Listen(host=host, port=port(number))


def add_web_options(parser: argparse.ArgumentParser, pages: str) -> None:
    """``--web`` and ``--web-linger``, for any command that serves its pages with ``serving``.
    ``pages`` says what is served (the help's words: whose pages, and what they show)."""
    parser.add_argument("--web", type=web_address, metavar="[HOST:]PORT",
                        help=f"serve {pages}; PORT 0 picks a free one, the URL is printed on "
                        "stderr at start; the host defaults to 127.0.0.1")
    parser.add_argument("--web-linger", action="store_true",
                        help="with --web: keep serving the pages after the last game, until "
                        "Ctrl-C")


class WebListenError(Exception):
    """The pages cannot be served where ``--web`` says (the port is taken, or the host is not
    an address of this machine): raised before the first game."""


@dataclass
class WebRun:
    """How a run with pages went: ``played`` once the tournament is over, so that a Ctrl-C
    afterwards (``--web-linger``) is an ending, not an interruption."""

    listen: Listen
    linger: bool
    live_note: str
    played: bool = False


def check_web_options(args: argparse.Namespace) -> None:
    """Refuse ``--web-linger`` without ``--web`` (before a tournament is made)."""
    if args.web_linger and args.web is None:
        raise UsageError("--web-linger keeps the pages of --web up: give --web too")


def web_run(args: argparse.Namespace) -> WebRun | None:
    """The pages asked for (None: no ``--web``), and what their live page says about games
    played in other processes."""
    listen: Listen | None = args.web
    if listen is None:
        return None
    return WebRun(listen, args.web_linger, _live_note(args))


def _live_note(args: argparse.Namespace) -> str:
    """Empty when the run's games are watched (in this process, or in worker processes, which
    send their public events); for a run on Ray, the sentence saying they are not."""
    return RAY_NOTE if args.ray_cluster is not None else ""


async def run_with_web(web: WebRun, store: Store, tid: str, options: RunOptions,
                       hook: ProgressHook, announce: Callable[[str], None],
                       rule: LiveRule | None = None) -> None:
    """Serve the pages, play the tournament, then stop serving (or, lingering, serve on until
    Ctrl-C). ``rule``: which live games are held back (None: the tournament's own; the command
    never gives another, a test's control run does)."""
    live = LiveGames()
    watch = LiveWatch(live)
    app = tournament_app(store, tid, live, web.live_note, watch, rule)
    async with serving(web, app, announce, "the tournament"):
        await run_tournament(store, tid, replace(options, watch=watch), hook)


@contextlib.asynccontextmanager
async def serving(web: WebRun, app: Starlette, announce: Callable[[str], None],
                  what: str) -> AsyncIterator[None]:
    """Serve ``app`` where ``web`` says while the body runs (``craits tournament run``'s or
    ``craits serve``'s games: ``what``), its addresses announced before the body starts; then
    stop serving, or, lingering, serve on until Ctrl-C. ``WebListenError`` before the body
    when the pages cannot be served there."""
    try:
        async with trio.open_nursery() as nursery:
            binds = await _bind(nursery, app, web.listen)
            for bind in binds:
                announce(f"web pages: {bind}/")
            yield
            web.played = True
            if web.linger:
                announce(f"{what} is over; the pages stay up until Ctrl-C")
                with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C ends it, as asked
                    await trio.sleep_forever()
            nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:  # the nursery wraps the one real error
        raise sole_exception(group) from None


async def _bind(nursery: trio.Nursery, app: Starlette, listen: Listen) -> list[str]:
    """Start serving ``app`` in ``nursery``: the addresses it listens on, or
    ``WebListenError`` (Hypercorn's ``OSError``, in its nurseries' groups)."""
    try:
        binds: list[str] = await nursery.start(serve, app, hypercorn_config(listen))
    except (OSError, BaseExceptionGroup) as exc:
        error = sole_exception(exc) if isinstance(exc, BaseExceptionGroup) else exc
        if not isinstance(error, OSError):
            raise
        raise WebListenError(f"cannot serve the pages on {listen.host}:{listen.port} "
                             f"({error.strerror or error})") from None
    return binds


def say(line: str) -> None:
    """A line for the operator, on stderr."""
    print(line, file=sys.stderr, flush=True)

