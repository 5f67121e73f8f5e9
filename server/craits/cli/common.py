"""Helpers shared by the CLI command modules: errors, JSON output, rules options."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from typing import Any, Final

from craits.engine import Rules, RulesError, rules_from_settings
from craits.hosting.sandbox import SandboxLimits


class UsageError(Exception):
    """A mistake by the user: printed as ``craits: error: ...`` with exit status 2."""


MAX_PORT: Final = 65_535


def int_range(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse ``type=``: a whole number from ``low`` to ``high`` (no upper bound if None),
    else a usage error that names the option.

    Numbers bound for the OS or the wire must be checked on the way in: out of range they used
    to be accepted, then silently wrapped (a port modulo 65536) or refused deep in the referee,
    where the failure was blamed on the bots.
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {value}")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high}, got {value}")
        return value

    return parse


port: Final = int_range(0, MAX_PORT)
"""``type=`` of a port to listen on (0 asks the OS for a free one)."""


def seconds(text: str) -> float:
    """An argparse ``type=`` for a timeout: a positive, finite number of seconds.

    ``float`` alone lets through -1, 0, nan and inf, which trio refuses (a ValueError traceback)
    or waits on forever.
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return value


def bot_spec(text: str) -> str:
    """An argparse ``type=`` for a bot SPEC: anything but blank. An empty command started a
    shell that exited at once, reported as "bot 'bot' never connected"."""
    if not text.strip():
        raise argparse.ArgumentTypeError(
            "a bot SPEC cannot be empty: give a bundled bot name or a command")
    return text


def add_sandbox_option(parser: argparse.ArgumentParser) -> None:
    """``--sandbox``: run bots as an adversarial tournament would."""
    parser.add_argument("--sandbox", action="store_true",
                        help="run each bot as a contest does (trust = \"adversarial\"): in the "
                        "bubblewrap sandbox, with the current directory as its own (read-only), "
                        "no network and the default [bots.limits] (docs/security.md)")


def sandbox_limits(args: argparse.Namespace) -> SandboxLimits | None:
    """The limits of ``--sandbox`` (the tournament defaults), or None without it."""
    return SandboxLimits() if args.sandbox else None


def print_json(data: Any) -> None:
    """One JSON object on stdout (the ``--json`` contract: nothing else on stdout)."""
    json.dump(data, sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


def add_rules_options(parser: argparse.ArgumentParser, with_preset: bool = True) -> None:
    """``--preset P`` and repeatable ``--set field=value``."""
    if with_preset:
        parser.add_argument(
            "--preset", default="standard", help="rules preset: standard, gamerules or spanish"
        )
    parser.add_argument(
        "--set", dest="settings", action="append", default=[], metavar="FIELD=VALUE",
        help="change one rules field (repeatable), e.g. --set face_cards=true",
    )


def rules_from_args(args: argparse.Namespace, preset_name: str | None = None) -> Rules:
    """The rules the options describe, or a ``UsageError`` that says what was wrong."""
    try:
        return rules_from_settings(preset_name or args.preset, args.settings)
    except RulesError as exc:
        raise UsageError(str(exc)) from None
