"""``craits replay TOURNAMENT_ID GAME_INDEX``: a stored tournament game, hand by hand."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from craits.report.steps import ReplayMismatch
from craits.report.stored import ReportError, StoredGame, load_game
from craits.report.terminal import Style, render

from .common import UsageError, print_json
from .database import add_db_option, database_path, open_results
from .standings_text import resolve_id


def register(subparsers: Any) -> None:
    """Add ``craits replay``."""
    parser = subparsers.add_parser(
        "replay", help="show a stored tournament game hand by hand",
        description="Replay a recorded tournament game from its seed and moves and tell it hand "
        "by hand: the deal, every play and draw, the scores and the result. See docs/reports.md.",
    )
    parser.add_argument("tournament", metavar="TOURNAMENT_ID",
                        help="tournament id (see `craits tournament list`)")
    parser.add_argument("game", metavar="GAME_INDEX", type=int,
                        help="game number in the schedule, from 0 (see `craits report`)")
    parser.add_argument("--seat", type=int, metavar="N",
                        help="tell the game as seat N saw it: others' cards hidden")
    parser.add_argument("--hand", type=int, metavar="H", help="show only hand H (from 1)")
    add_db_option(parser)
    parser.add_argument("--json", action="store_true",
                        help="print the game record (rules, seed, moves, events, result) as JSON")
    parser.set_defaults(func=cmd_replay)


def read_game(db: Path, tournament: str, index: int) -> StoredGame:
    """The stored game, or a usage error naming what is missing (``ReplayMismatch``, a stored
    game that does not replay as stored, is not the user's mistake: it goes on up).

    A replay is the organiser's own view and shows the game whole, seed and cards, even while
    other seatings of its deal are still to be played (the organiser holds the deal key
    anyway); a note on stderr then says that this output must not reach a contestant yet
    (docs/reports.md)."""
    try:
        with open_results(db, "read") as store:
            tid = resolve_id(store, tournament, db)
            game = load_game(store, tid, index)
            to_come = store.deals_in_play(tid).get(index, ())
    except ReplayMismatch:
        raise
    except ReportError as exc:
        raise UsageError(str(exc)) from None
    if to_come:
        games = ", ".join(str(g) for g in to_come[:5]) + (", ..." if len(to_come) > 5 else "")
        print(f"craits: note: game{'s' if len(to_come) > 1 else ''} {games} will be dealt the "
              f"same cards as game {index} and {'have' if len(to_come) > 1 else 'has'} not "
              "been played yet: keep this replay from every contestant until then",
              file=sys.stderr)
    return game


def cmd_replay(args: argparse.Namespace) -> int:
    """Print the game as text, or its record as JSON."""
    if args.json and (args.seat is not None or args.hand is not None):
        raise UsageError("--json prints the whole record; --seat and --hand are for the text")
    try:
        game = read_game(database_path(args), args.tournament, args.game)
        if args.json:
            print_json(game.to_dict())
            return 0
        _check_view(game, args.seat, args.hand)
        lines = render(game, args.seat, args.hand, Style(_colour()))
    except ReplayMismatch as exc:
        print(f"craits: error: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _check_view(game: StoredGame, seat: int | None, hand: int | None) -> None:
    players = len(game.seats)
    if seat is not None and not 0 <= seat < players:
        raise UsageError(f"--seat {seat}: the game has seats 0 to {players - 1}")
    hands = sum(1 for e in game.events if e.get("kind") == "hand_end")
    if hand is not None and not 1 <= hand <= hands:
        raise UsageError(f"--hand {hand}: the game has hands 1 to {hands}")


def _colour() -> bool:
    """ANSI only for a terminal, and never when NO_COLOR is set."""
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ
