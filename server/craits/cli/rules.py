"""``craits rules show`` and ``craits rules score``: inspect a rules configuration, score a hand.

``show`` answers "what exactly does this preset plus these settings mean?" before a tournament;
``score`` settles a scoring question at the table, and explains which cards the threes cancelled
because that is the part people get wrong (the parsing and the words are the engine's
``score_text``; this module only reads the arguments and prints).
"""

from __future__ import annotations

import argparse
import ast
import functools
import inspect
import itertools
from typing import Any

from craits.engine import PRESETS, Rules
from craits.engine import rules as rules_module
from craits.engine.rules_changes import changed_fields, format_value
from craits.engine.score_text import HandError, explain, parse_hand

from .common import UsageError, add_rules_options, print_json, rules_from_args


def register(subparsers: Any) -> None:
    """Add ``craits rules show`` and ``craits rules score``."""
    parser = subparsers.add_parser(
        "rules", help="show a rules configuration or score a hand",
        description="Inspect rules presets and settings, or score the cards left in a hand.",
    )
    actions = parser.add_subparsers(dest="rules_action", metavar="ACTION", required=True)
    register_show(actions)
    register_score(actions)


def register_show(actions: Any) -> None:
    """``craits rules show [PRESET] [--set field=value ...] [--json]``."""
    show = actions.add_parser(
        "show", help="print every rules field of a preset (with --set changes applied)",
        description="Print every rules field with its value and meaning. --json prints the "
        "configuration as one JSON object, the form stored in game records.",
    )
    show.add_argument(
        "preset_name", nargs="?", default="standard", metavar="PRESET",
        help=f"one of {', '.join(PRESETS)} (default standard)",
    )
    add_rules_options(show, with_preset=False)
    show.add_argument("--json", action="store_true", help="print one JSON object")
    show.set_defaults(func=run_show)


def register_score(actions: Any) -> None:
    """``craits rules score [--preset P] [--set ...] CARD...``."""
    score = actions.add_parser(
        "score", help="score the cards left in a hand at its end",
        description="Score the cards a player holds when a hand ends; threes cancel the "
        "highest cards they may. Cards are like 10H, QS, AD, or bare ranks (A 3 3 6 7 9 K); "
        "commas work as separators too (A,3,3,6,7,9,K).",
    )
    add_rules_options(score)
    score.add_argument("cards", nargs="+", metavar="CARD", help="the cards left in the hand")
    score.add_argument("--json", action="store_true", help="print one JSON object")
    score.set_defaults(func=run_score)


# ----------------------------------------------------------------------------- show
def run_show(args: argparse.Namespace) -> int:
    """Print the configuration as a table, or as JSON."""
    rules = rules_from_args(args, args.preset_name)
    if args.json:
        print_json(rules.to_dict())
    else:
        print("\n".join(show_lines(rules)))
    return 0


def show_lines(rules: Rules) -> list[str]:
    """An aligned ``field  value  description`` table; ``*`` marks values changed by ``--set``."""
    changed = changed_fields(rules)
    docs = field_descriptions()
    rows = [("field", "value", "description")]
    for name, value in rules.to_dict().items():
        mark = "*" if name in changed else ""
        rows.append((name, format_value(value) + mark, docs.get(name, "")))
    widths = [max(len(row[i]) for row in rows) for i in range(2)]
    lines = [f"{f:<{widths[0]}}  {v:<{widths[1]}}  {d}".rstrip() for f, v, d in rows]
    if changed:
        lines.append(f"* differs from the {rules.preset!r} preset")
    return lines


@functools.cache
def field_descriptions() -> dict[str, str]:
    """Each ``Rules`` field's docstring, read from the engine's source so the two cannot drift.

    Attribute docstrings are not kept at run time, hence the parse. Returns what it can find;
    an install without sources simply shows no descriptions.
    """
    try:
        tree = ast.parse(inspect.getsource(rules_module))
    except (OSError, TypeError, SyntaxError):
        return {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Rules":
            return _attribute_docs(node.body)
    return {}


def _attribute_docs(body: list[ast.stmt]) -> dict[str, str]:
    """Map ``name: type = value`` statements to the string literal right after them."""
    docs: dict[str, str] = {}
    for stmt, after in itertools.pairwise(body):
        if (
            isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
            and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[stmt.target.id] = " ".join(after.value.value.replace("``", "").split())
    return docs


# ----------------------------------------------------------------------------- score
def run_score(args: argparse.Namespace) -> int:
    """Score the given cards and explain the threes' cancellations."""
    rules = rules_from_args(args)
    try:
        cards = parse_hand(args.cards)
    except HandError as exc:
        raise UsageError(str(exc)) from None
    result = explain(cards, rules)
    if args.json:
        print_json({**result.to_dict(), "rules": rules.to_dict()})
    else:
        print(f"score: {result.score}")
        print(result.text)
    return 0
