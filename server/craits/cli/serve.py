"""``craits serve``: a referee that remote bots dial, then games between them.

The referee issues one token per named bot (or takes the one given as NAME=TOKEN, so an organiser
can hand tokens out in advance), waits for every bot to connect, then plays the games, rotating
seats between games.

With ``--web [HOST:]PORT`` the run's pages (``craits.contest.web.serve``: the results so far,
the live games, each finished game's viewer) are served beside the referee in its own trio run,
by the tournament's ``serving`` (``tournament_web``): bound, and their address printed on
stderr, before the referee listens, so a busy port stops the command before anything is
played; they stop with the games, unless ``--web-linger`` keeps them up until Ctrl-C (the
referee closed meanwhile, so the bots are let go when the last game ends, as without pages).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any

from craits.contest.web.serve import ServedGames, serve_app
from craits.dealkey import run_key
from craits.engine import Rules
from craits.engine.state import MAX_PLAYERS, MIN_PLAYERS
from craits.hosting.match import scored
from craits.referee import bridge, tokens
from craits.referee.game import GameSpec, PlayedGame, play_game
from craits.referee.hub import BotEntry
from craits.referee.policy import FailurePolicy, TimeControl
from craits.referee.server import Referee, open_referee
from craits.tournament.plan.config import BOT_NAME

from .common import (
    UsageError,
    add_rules_options,
    int_range,
    port,
    print_json,
    rules_from_args,
    seconds,
)
from .match_series import summary_lines
from .results import format_result, result_to_dict
from .timing import add_time_options, time_from_args
from .tls import add_tls_options, tls_from_args
from .tournament_web import (
    WebListenError,
    WebRun,
    add_web_options,
    check_web_options,
    say,
    serving,
)

_LISTEN_ADVICE = {
    "--port": "try --port 0",
    "--host": f"try --host {bridge.DEFAULT_HOST}, or an address of this machine",
}
"""What to change when the referee cannot listen, by the option ``ListenError`` blames."""


def register(subparsers: Any) -> None:
    """Add ``craits serve``."""
    parser = subparsers.add_parser(
        "serve", help="run a referee for remote bots and play games between them",
        description="Listen for remote bots over gRPC (service craits.v1.Referee, with health "
        "and reflection). Each --bot NAME gets a token, printed at start on stderr (so that "
        "stdout holds only results); a bot connects with CRAITS_SERVER=HOST:PORT and "
        "CRAITS_TOKEN=TOKEN (over TLS, CRAITS_SERVER=tls://HOST:PORT and CRAITS_TLS_CA=CA.pem). "
        "When all have connected, the games are played, seats rotating between games; with "
        "--games N, the total of all of them follows.",
        epilog="Each game's result is printed as soon as it ends, so Ctrl-C loses only the game "
        "being played. With --json, one object is printed at the end, "
        '{"games": [...], "interrupted": false}; after Ctrl-C it holds the games finished so '
        'far and "interrupted": true (exit status 130). With --web, the pages show the '
        "results so far, the games being played (public moves only: no hand, no stock, no "
        "card drawn) and each finished game with every hand (each game is dealt its own "
        "cards; with --seed, once every game has been played).",
    )
    parser.add_argument("--host", default=bridge.DEFAULT_HOST,
                        help=f"address to listen on ({bridge.DEFAULT_HOST})")
    parser.add_argument("--port", type=port, default=50051, help="port; 0 picks a free one (50051)")
    parser.add_argument("--bot", dest="bots", action="append", default=[], metavar="NAME[=TOKEN]",
                        help=f"a remote bot to expect (repeat, {MIN_PLAYERS} to {MAX_PLAYERS})")
    parser.add_argument("--games", type=int_range(1), default=1, help="games to play (default 1)")
    parser.add_argument("--seed", type=int, default=None,
                        help="engine seed of the first game, to replay deals (default: secret "
                        "seeds; anyone who knows the seed knows every card, so leave it out "
                        "when the bots are other people's)")
    add_tls_options(parser)
    parser.add_argument("--connect-timeout", type=seconds, default=600.0,
                        help="seconds to wait for every bot to connect (600)")
    add_rules_options(parser)
    add_time_options(parser)
    parser.add_argument("--json", action="store_true", help="print results as one JSON object")
    add_web_options(parser, "the run's pages while it plays: the results updating as games "
                    "finish, the games being played (public moves only), each finished game's "
                    "viewer")
    parser.set_defaults(func=run)


def _parse_bots(specs: list[str]) -> list[tuple[str, str | None]]:
    if not MIN_PLAYERS <= len(specs) <= MAX_PLAYERS:
        raise UsageError(f"name {MIN_PLAYERS} to {MAX_PLAYERS} remote bots with --bot "
                         f"NAME[=TOKEN], got {len(specs)}")
    bots = []
    for spec in specs:
        name, sep, token = spec.partition("=")
        if not name or (sep and not token):
            raise UsageError(f"bad --bot {spec!r}: expected NAME or NAME=TOKEN")
        if not BOT_NAME.fullmatch(name):  # the rule tournament configurations follow
            raise UsageError(f"bad --bot {spec!r}: {name!r} is not a plain name (letters, "
                             "digits, _ . + -; at most 64)")
        try:
            if token:
                tokens.check(token)
        except tokens.TokenError as exc:
            raise UsageError(f"bad --bot {name}=...: {exc}") from None
        bots.append((name, token or None))
    if len({n for n, _ in bots}) != len(bots):
        raise UsageError("every --bot NAME must be different")
    try:
        tokens.check_unique((n, t or "") for n, t in bots)
    except tokens.TokenError as exc:
        raise UsageError(f"bad --bot: {exc}") from None
    return bots


def run(args: argparse.Namespace) -> int:
    """Validate, then serve until the games are played."""
    bots = _parse_bots(args.bots)
    check_web_options(args)
    rules = rules_from_args(args)
    time_control, policy = time_from_args(args)
    args.tls = tls_from_args(args)
    finished: list[PlayedGame] = []
    try:
        bridge.run(_serve, args, bots, rules, time_control, policy, finished)
    except bridge.ListenError as exc:
        raise UsageError(f"{exc} ({_LISTEN_ADVICE[exc.option]})") from None
    except WebListenError as exc:
        raise UsageError(f"{exc}; choose another --web PORT (or 0): no game was played") \
            from None
    except _NotConnected:
        print("craits: not every bot connected in time; no game played", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        if args.json:  # the games already played are not lost with the one being played
            print_json(_games_json(finished, interrupted=True))
        raise
    if args.json:
        print_json(_games_json(finished, interrupted=False))
    elif len(finished) > 1:  # each game came with its table: now the total of all
        games = scored(finished, 1)  # each game is dealt from its own seed
        print("\n" + "\n".join(summary_lines(games, [name for name, _ in bots])))
    return 0


def _games_json(results: list[PlayedGame], interrupted: bool) -> dict[str, Any]:
    return {"games": [result_to_dict(r) for r in results], "interrupted": interrupted}


class _NotConnected(Exception):
    """A bot did not connect in time: no game is played (and lingering pages would show
    none)."""


async def _serve(
    args: argparse.Namespace, bots: list[tuple[str, str | None]], rules: Rules,
    time_control: TimeControl, policy: FailurePolicy, finished: list[PlayedGame],
) -> None:
    """Wait for every bot, then play the games into ``finished`` (the caller's, so that a
    Ctrl-C keeps them), the pages beside them with ``--web``; ``_NotConnected`` if a bot did
    not connect in time."""
    key = run_key(args.seed)
    pages = None if args.web is None else ServedGames(
        tuple(name for name, _ in bots), args.games, args.seed is not None, finished)
    async with (contextlib.nullcontext() if pages is None else serving(
            WebRun(args.web, args.web_linger, ""), serve_app(pages), say, "the last game")):
        async with open_referee(args.host, args.port, tls=args.tls) as referee:
            entries = [referee.hub.issue_token(name, token) for name, token in bots]
            _announce(referee, entries)
            for entry in entries:
                if not await referee.hub.wait_connected(entry, args.connect_timeout):
                    raise _NotConnected
                print(f"connected: {entry.name}", file=sys.stderr)
            if pages is not None:
                pages.playing()
            for g in range(args.games):
                order = entries[g % len(entries):] + entries[: g % len(entries)]
                seed = key.seed("serve", g) if args.seed is None else args.seed + g
                spec = GameSpec(key.game_id("serve", g), rules, seed, time_control, policy)
                watch = None if pages is None else pages.watch(g, spec, [e.name for e in order])
                finished.append(await play_game(
                    spec, [referee.hub.seat_for(e) for e in order], watch=watch))
                if pages is not None:
                    pages.ended(g)
                if not args.json:
                    _print_result(finished[-1], first=g == 0)
        if pages is not None:  # the referee is closed: the bots are let go, the pages stay
            pages.finished()


def _print_result(result: PlayedGame, first: bool) -> None:
    """One game's table as soon as the game ends, a blank line between games."""
    print(("" if first else "\n") + format_result(result), flush=True)


def _announce(referee: Referee, entries: list[BotEntry]) -> None:
    """Where the referee listens, then one line per bot with every variable it must set (over
    TLS the address says so and, when known, the CA is one of them: a bot given the address
    and token alone used to fail its dials with "Socket closed" and no hint)."""
    over = " over TLS" if referee.tls else ""
    print(f"referee listening on {referee.address}{over}", file=sys.stderr)
    for entry in entries:
        print(f"bot {entry.name}: {referee.bot_settings(entry.token)}", file=sys.stderr)
    if (advice := referee.tls_advice()) is not None:
        print(advice, file=sys.stderr)
    sys.stderr.flush()
