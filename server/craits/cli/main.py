"""Entry point of the ``craits`` command: builds the parser from the command modules."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from craits import __version__

from .common import UsageError

COMMAND_MODULES = (
    "rules", "simulate", "match", "serve", "tournament", "check", "play", "pipe", "replay",
    "report",
)
"""Modules of ``craits.cli`` that each add one or more subcommands via ``register``."""


def build_parser() -> argparse.ArgumentParser:
    """The full parser, with every command module's subcommands."""
    parser = argparse.ArgumentParser(
        prog="craits",
        description="Craits Arena: rules engine, gRPC referee and tournaments for Craits bots.",
    )
    parser.add_argument("--version", action="version", version=f"craits {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(f"craits.cli.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit status (0 ok, 1 failure, 2 usage error)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.func(args)
    except UsageError as exc:
        print(f"craits: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("craits: interrupted", file=sys.stderr)
        return 130
    return status


if __name__ == "__main__":
    sys.exit(main())
