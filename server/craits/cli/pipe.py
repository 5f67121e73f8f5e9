"""``craits pipe -- COMMAND...``: play under a referee with any program that reads and writes lines.

A thin layer over ``craits.pipebot.run_pipe``: options, checks that can fail before connecting,
logging. The pipe library (and the SDK it builds on) is imported only when the command runs, so
the other ``craits`` commands never pay for it.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import shutil
import sys
from pathlib import Path
from typing import Any

from .common import UsageError

DEFAULT_ATTEMPTS = 8
"""Failed dials in a row before giving up: the SDK's ``DEFAULT_ATTEMPTS`` (a test checks), not
imported from there, as importing the SDK here would slow down every other command."""


def register(subparsers: Any) -> None:
    """Add ``craits pipe``."""
    parser = subparsers.add_parser(
        "pipe", help="play as a bot by running a program that speaks JSON lines",
        description="Connect to a referee as a bot (CRAITS_SERVER and CRAITS_TOKEN, as the "
        "referee sets them when it launches a bot) and start COMMAND once per game. For each "
        "decision COMMAND reads one JSON line on stdin (the observation, its legal moves, the "
        "rules) and writes one line on stdout: a move such as 'play 8C suit=H' or 'draw', or "
        "the index of a legal move. stdin is closed when the game ends. See docs/pipe-bots.md.",
        epilog="example: craits match --bot 'craits pipe -- bash bots/pipe/first_legal.sh' "
        "--bot greedy",
    )
    parser.add_argument("--server", help="referee HOST:PORT (default: $CRAITS_SERVER)")
    parser.add_argument("--token", help="this bot's token (default: $CRAITS_TOKEN)")
    parser.add_argument("--attempts", type=int, default=DEFAULT_ATTEMPTS,
                        help=f"failed dials in a row before giving up ({DEFAULT_ATTEMPTS})")
    parser.add_argument("--stderr", type=Path, metavar="FILE",
                        help="append the program's stderr to FILE (default: this process's "
                        "stderr, which a referee-launched bot has in its log)")
    parser.add_argument("-q", "--quiet", action="store_true", help="log only problems")
    parser.add_argument("command", nargs="+", metavar="COMMAND",
                        help="the program and its arguments (after --; run directly, no shell)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Check what can be checked before connecting, then play until the referee is done."""
    from craits.pipebot import run_pipe
    from craits_sdk import Options

    try:
        options = Options.resolve(args.server, args.token, args.attempts)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if shutil.which(args.command[0]) is None:
        raise UsageError(f"cannot run {args.command[0]!r}: not found or not executable")
    _check_stderr_file(args.stderr)
    _configure_logging(args.quiet)
    return asyncio.run(run_pipe(args.command, options, args.stderr))


def _check_stderr_file(path: Path | None) -> None:
    """Open ``--stderr`` once before connecting: a path that cannot be appended to is a usage
    error now rather than a traceback once the first game starts."""
    if path is None:
        return
    try:
        with path.open("ab"):
            pass
    except OSError as exc:
        raise UsageError(f"cannot append to --stderr {path}: {exc.strerror or exc}") from None


def _configure_logging(quiet: bool) -> None:
    """The pipe's own messages go to stderr, prefixed so they stand out from the program's."""
    logger = logging.getLogger("craits.pipe")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("craits pipe: %(levelname)s: %(message)s"))
        logger.addHandler(handler)
    logger.setLevel(logging.WARNING if quiet else logging.INFO)
