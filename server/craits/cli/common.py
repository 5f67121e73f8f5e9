"""Helpers shared by the CLI command modules: errors, JSON output, rules options."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from craits.engine import Rules, RulesError, rules_from_settings


class UsageError(Exception):
    """A mistake by the user: printed as ``craits: error: ...`` with exit status 2."""


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
