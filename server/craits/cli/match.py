"""``craits match``: one game between bot processes over gRPC, with an embedded referee."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from craits.dealkey import run_key
from craits.engine.state import MAX_PLAYERS, MIN_PLAYERS
from craits.referee.game import GameSpec

from .common import (
    UsageError,
    add_rules_options,
    add_sandbox_option,
    bot_spec,
    int_range,
    print_json,
    rules_from_args,
)
from .match_series import play_logged, run_series
from .results import format_result, result_to_dict
from .timing import add_time_options, time_from_args


def register(subparsers: Any) -> None:
    """Add ``craits match``."""
    parser = subparsers.add_parser(
        "match", help="play one game between bot processes over gRPC",
        description="Start a referee on loopback, launch each bot as its own process (it finds "
        "the referee in CRAITS_SERVER and its token in CRAITS_TOKEN), play one full game and "
        "print the result. A SPEC is a bundled bot name (greedy, random, lowcard) or a shell "
        "command, run from the current directory with this installation's python first on PATH; "
        "seats follow the order of --bot.",
    )
    parser.add_argument("--bot", dest="bots", action="append", default=[], metavar="SPEC",
                        type=bot_spec,
                        required=True,
                        help=f"a bot; give {MIN_PLAYERS} to {MAX_PLAYERS} (repeat the option)")
    parser.add_argument("--seed", type=int, default=None,
                        help="engine seed, to replay a deal (default: a secret one; anyone who "
                        "knows the seed knows every card, so leave it out against other "
                        "people's bots)")
    add_rules_options(parser)
    add_time_options(parser)
    parser.add_argument("--games", type=int_range(1), metavar="N",
                        help="play N games instead of one, each deal once from every seat (N a "
                        "multiple of the number of bots), and print the first bot's score "
                        "against each other: W-L-D and the Elo difference with its interval")
    parser.add_argument("--log-dir", type=Path,
                        help="where bot stderr logs go (default: a new temp dir)")
    add_sandbox_option(parser)
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Validate, play, print."""
    if not MIN_PLAYERS <= len(args.bots) <= MAX_PLAYERS:
        raise UsageError(f"a game needs {MIN_PLAYERS} to {MAX_PLAYERS} bots, got {len(args.bots)} "
                         "(repeat --bot SPEC)")
    rules = rules_from_args(args)
    time_control, policy = time_from_args(args)
    key = run_key(args.seed)
    if args.games is not None:
        return run_series(args, key, rules, time_control, policy)
    seed = key.seed("match") if args.seed is None else args.seed
    spec = GameSpec(key.game_id("match"), rules, seed, time_control, policy)
    results = play_logged(args, [(spec, range(len(args.bots)))], lambda result: None)
    if results is None:
        return 1
    (result,) = results
    if args.json:
        print_json(result_to_dict(result))
    else:
        print(format_result(result))
    return 0
