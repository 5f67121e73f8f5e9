"""``craits play``: a person plays one game in the terminal (seat 0) against bot processes."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from craits.engine.state import MAX_PLAYERS, MIN_PLAYERS
from craits.hosting.launcher import LaunchError
from craits.hosting.running import NotConnected
from craits.play.human import HUMAN_MOVE_MS, HumanSeat, play_with_human
from craits.referee import bridge
from craits.referee.game import GameSpec
from craits.referee.policy import TimeControl

from .botlogs import BotLogs
from .common import UsageError, add_rules_options, bot_spec, rules_from_args
from .results import format_result

MIN_OPPONENTS, MAX_OPPONENTS = MIN_PLAYERS - 1, MAX_PLAYERS - 1
"""You take one seat of the table; the bots fill the rest."""


def register(subparsers: Any) -> None:
    """Add ``craits play``."""
    parser = subparsers.add_parser(
        "play", help="play a game yourself in the terminal against bots",
        description="You are seat 0; each --bot is launched as its own process against a "
        "loopback referee. On your turn the table, your hand and your legal moves are shown; "
        "answer with a move's number, its text ('play 8C suit=H', 'draw') or a card ('7H'). "
        "q quits (exit status 0; the input ending mid-game is status 1). There is no time limit.",
    )
    parser.add_argument("--bot", dest="bots", action="append", default=[], metavar="SPEC",
                        type=bot_spec,
                        required=True, help="an opponent: bundled name or shell command "
                        f"(repeat for {MIN_OPPONENTS} to {MAX_OPPONENTS} opponents)")
    parser.add_argument("--seed", type=int, default=1, help="game seed (default 1)")
    add_rules_options(parser)
    parser.add_argument("--log-dir", type=Path,
                        help="where bot stderr logs go (default: a new temp dir)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Validate, play, print the result table (nothing if you quit: status 0, or 1 if the
    input ended first)."""
    if not MIN_OPPONENTS <= len(args.bots) <= MAX_OPPONENTS:
        raise UsageError(f"play against {MIN_OPPONENTS} to {MAX_OPPONENTS} bots, "
                         f"got {len(args.bots)} (repeat --bot SPEC)")
    rules = rules_from_args(args)
    spec = GameSpec(f"play-{args.seed}", rules, args.seed, TimeControl(HUMAN_MOVE_MS, 0))
    human = HumanSeat()
    with BotLogs(args.log_dir, "play") as logs:
        try:
            result = bridge.run(play_with_human, human, args.bots, spec, logs.path)
        except LaunchError as exc:
            raise UsageError(str(exc)) from None
        except NotConnected as exc:
            print(f"craits: {exc} (bot logs: {logs.keep()})", file=sys.stderr)
            return 1
        if result is not None and result.faults:
            print(f"craits: bot logs: {logs.keep()}", file=sys.stderr)
    if result is None:  # quitting is a choice; input that ran out mid-game is a failure
        return 1 if human.input_ended else 0
    print()
    print(format_result(result))
    return 0
