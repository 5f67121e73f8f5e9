"""``craits tournament run --bot SPEC --bot SPEC ...``: a tournament from the command line.

Everything a file says for the common case can be said with flags, as cutechess and fastchess
users expect; with a file too, the flags override it. The flags are applied to the file's parsed
table (or the demo's), and the result goes through the same validation as a file, so a flag's
bad value is reported as the key it sets (``deal_sets: must be ...``).
"""

from __future__ import annotations

import argparse
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from craits.engine.rules import Rules, RulesError, preset
from craits.hosting.launcher import display_name
from craits.tournament.plan.config import (
    ConfigError,
    TournamentConfig,
    config_from_dict,
    load_table,
)

from .common import bot_spec, int_range
from .timing import move_ms

IN_PROCESS = "python:"
"""A SPEC that starts with this names an in-process bot (``[[bots]] python = ...``)."""

_SCALAR_FLAGS = ("table_size", "deal_sets", "concurrency", "seed")
"""Flags that set the top-level key of the same name."""


def add_tournament_flags(parser: argparse.ArgumentParser) -> None:
    """The options of ``tournament run`` that stand for a file's keys."""
    group = parser.add_argument_group(
        "a tournament without a file (with FILE too, these override it)")
    group.add_argument("--bot", dest="bots", action="append", default=[], metavar="SPEC",
                       type=bot_spec, help="a bot: a bundled name, a shell command, or "
                       "python:module:Class (an SDK Bot played in process); repeat for each "
                       "(replaces the file's [[bots]])")
    group.add_argument("--table-size", type=int_range(2), metavar="K",
                       help="players at each table")
    group.add_argument("--deal-sets", type=int_range(1), metavar="N",
                       help="deal sets each meeting plays")
    group.add_argument("--concurrency", type=int_range(1), metavar="N",
                       help="tables played at once")
    group.add_argument("--seed", type=int, metavar="S", help="tournament seed")
    group.add_argument("--move-ms", type=move_ms, metavar="MS", help="limit per decision")
    group.add_argument("--preset", metavar="P",
                       help="rules preset: standard, gamerules or spanish (replaces [rules])")
    group.add_argument("--set", dest="settings", action="append", default=[],
                       metavar="FIELD=VALUE", help="change one rules field (repeatable)")


def read_table(file: Path | None, demo: dict[str, Any]) -> dict[str, Any]:
    """The file's parsed TOML (a ``ConfigError`` naming it if it cannot be read), or the demo's
    table."""
    return dict(demo) if file is None else load_table(file)


def with_flags(table: dict[str, Any], args: argparse.Namespace, bundled: Collection[str],
               source: str) -> TournamentConfig:
    """The configuration ``table`` describes once the flags are applied; a ``ConfigError``
    starting with ``source`` (the file, or "command line") for anything wrong."""
    data = dict(table)
    if args.bots:
        data["bots"] = bot_tables(args.bots, bundled)
    for key in _SCALAR_FLAGS:
        if getattr(args, key) is not None:
            data[key] = getattr(args, key)
    if args.move_ms is not None:
        data["time"] = {**data.get("time", {}), "move_ms": args.move_ms}
    try:
        if args.preset is not None or args.settings:
            data["rules"] = _rules(data.get("rules", {}), args.preset, args.settings).to_dict()
        return config_from_dict(data, bundled)
    except (ConfigError, RulesError) as exc:
        raise ConfigError(f"{source}: {exc}") from None


def _rules(table: Any, preset_name: str | None, settings: Sequence[str]) -> Rules:
    """The file's rules (or the whole ``preset_name``), with ``settings`` applied in order."""
    rules = preset(preset_name) if preset_name is not None else Rules.from_dict(table)
    for setting in settings:
        rules = rules.with_setting(setting)
    return rules


def bot_tables(specs: Sequence[str], bundled: Collection[str]) -> list[dict[str, str]]:
    """``[[bots]]`` tables for SPECs: a bundled bot by name, ``python:module:Class`` as an
    in-process bot named after its class, any other as a command named after what it runs; a
    name that comes twice gets ``-2``, ``-3``, ... so each is its own bot."""
    tables: list[dict[str, str]] = []
    seen: dict[str, int] = {}
    for spec in specs:
        target = spec.removeprefix(IN_PROCESS) if spec.startswith(IN_PROCESS) else ""
        base = (target.rpartition(":")[2] or "bot") if target else display_name(spec)
        seen[base] = seen.get(base, 0) + 1
        name = base if seen[base] == 1 else f"{base}-{seen[base]}"
        entry = {"name": name}
        if target:
            entry["python"] = target
        elif spec not in bundled:
            entry["command"] = spec
        elif name != spec:
            entry["bundled"] = spec
        tables.append(entry)
    return tables
