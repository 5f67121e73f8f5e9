"""Starting a bot: ``python -m craits_sdk run MODULE:CLASS`` and ``craits_sdk.run(BotClass)``.

Both read the referee's address and the bot's token from ``--server``/``--token`` or from the
``CRAITS_SERVER``/``CRAITS_TOKEN`` environment variables that a referee sets when it launches a
bot, so a bot runs unchanged by hand and under a tournament.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import sys
from collections.abc import Sequence
from typing import NoReturn

from .bot import Bot
from .client import DEFAULT_ATTEMPTS, EXIT_REFUSED, Options, serve


class UsageError(Exception):
    """The command line or the environment does not say enough to start."""


def add_connection_args(parser: argparse.ArgumentParser) -> None:
    """The options every way of starting a bot shares."""
    parser.add_argument("--server", help="referee HOST:PORT (default: $CRAITS_SERVER)")
    parser.add_argument("--token", help="this bot's token (default: $CRAITS_TOKEN)")
    parser.add_argument(
        "--attempts", type=int, default=DEFAULT_ATTEMPTS,
        help=f"failed dials in a row before giving up ({DEFAULT_ATTEMPTS})",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="log only problems")


def options_from(args: argparse.Namespace) -> Options:
    """Connection options from parsed arguments, falling back on the environment."""
    try:
        return Options.resolve(args.server, args.token, args.attempts)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def load_bot(spec: str) -> Bot:
    """An instance of the ``Bot`` subclass named ``module:Class``."""
    module_name, sep, class_name = spec.partition(":")
    if not sep or not module_name or not class_name:
        raise UsageError(f"bot {spec!r} must look like module:Class, e.g. mybot:MyBot")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"cannot import {module_name!r}: {exc}") from None
    cls = getattr(module, class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Bot)):
        raise UsageError(f"{spec!r} is not a craits_sdk.Bot subclass")
    return cls()


def play(bot: Bot, args: argparse.Namespace) -> int:
    """Connect ``bot`` as the arguments say; return the exit status."""
    options = options_from(args)
    _configure_logging(args.quiet)
    try:
        return asyncio.run(serve(bot, options))
    except KeyboardInterrupt:
        return 130


def build_parser() -> argparse.ArgumentParser:
    """``python -m craits_sdk``'s parser."""
    parser = argparse.ArgumentParser(
        prog="python -m craits_sdk", description="Run a Craits bot against a referee."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    run_cmd = sub.add_parser("run", help="connect a bot class to the referee")
    run_cmd.add_argument("bot", metavar="MODULE:CLASS", help="the Bot subclass to run")
    add_connection_args(run_cmd)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The ``python -m craits_sdk`` command; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return play(load_bot(args.bot), args)
    except UsageError as exc:
        print(f"craits_sdk: error: {exc}", file=sys.stderr)
        return EXIT_REFUSED


def run(bot: type[Bot] | Bot, argv: Sequence[str] | None = None) -> NoReturn:
    """Run ``bot`` (a class or an instance) as this process's bot and exit with its status.

    Meant for ``if __name__ == "__main__": run(MyBot)``; accepts the connection options of
    ``python -m craits_sdk run`` on the command line.
    """
    instance = bot() if isinstance(bot, type) else bot
    parser = argparse.ArgumentParser(description=f"Run the Craits bot {instance.client_name()}.")
    add_connection_args(parser)
    args = parser.parse_args(argv)
    try:
        status = play(instance, args)
    except UsageError as exc:
        print(f"craits_sdk: error: {exc}", file=sys.stderr)
        status = EXIT_REFUSED
    sys.exit(status)


def _configure_logging(quiet: bool) -> None:
    """Send the SDK's messages to stderr unless the bot configured logging itself."""
    logger = logging.getLogger("craits_sdk")
    if logger.handlers or logging.getLogger().handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("craits_sdk: %(levelname)s: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING if quiet else logging.INFO)
