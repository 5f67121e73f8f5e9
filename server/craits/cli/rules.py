"""``craits rules show`` and ``craits rules score``: inspect a rules configuration, score a hand.

``show`` answers "what exactly does this preset plus these settings mean?" before a tournament;
``score`` settles a scoring question at the table, and explains which cards the threes cancelled
because that is the part people get wrong.
"""

from __future__ import annotations

import argparse
import ast
import functools
import inspect
import itertools
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Final

from craits.engine import PRESETS, Card, CardError, Rules, hand_score
from craits.engine import rules as rules_module
from craits.engine.cards import RANK, RANK_NAMES, SUIT_LETTERS
from craits.engine.rules_changes import changed_fields, format_value
from craits.engine.scoring import CARD_POINTS, ONLY_THREES_POINTS, cancellations
from craits.engine.state import MAX_PLAYERS, SINGLE_DECK_MAX

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
    cards = parse_hand(args.cards)
    result = explain(cards, rules)
    if args.json:
        print_json({**result.to_dict(), "rules": rules.to_dict()})
    else:
        print(f"score: {result.score}")
        print(result.text)
    return 0


@dataclass(frozen=True, slots=True)
class HandCard:
    """A card as the user wrote it: ``label`` keeps a bare rank bare (``7``, not ``7C``)."""

    label: str
    card: Card

    @property
    def points(self) -> int:
        """Face points (a three's points come from the rules, not from here)."""
        return CARD_POINTS[RANK[self.card]]


_SEPARATORS = re.compile(r"[,\s]+")
MOST_DECKS: Final = 1 if MAX_PLAYERS <= SINGLE_DECK_MAX else 2
"""The most decks any game deals from (bigger tables play with two)."""


def parse_hand(texts: list[str]) -> list[HandCard]:
    """Parse cards given as separate words and/or comma-separated lists."""
    tokens = [t for text in texts for t in _SEPARATORS.split(text) if t]
    if not tokens:
        raise UsageError("give at least one card, e.g. 'craits rules score A 3 3 6 7 9 K'")
    cards = [parse_card(t) for t in tokens]
    check_copies(cards)
    return cards


def check_copies(cards: list[HandCard]) -> None:
    """Refuse a hand no deal can give: a card more often than there are decks, or a rank (a
    bare one stands for any card of it) more often than the decks hold it."""
    named = Counter(c.label for c in cards if c.label != RANK_NAMES[c.card.rank])
    ranks = Counter(RANK_NAMES[c.card.rank] for c in cards)
    for label, n in itertools.chain(named.items(), ranks.items()):
        most = MOST_DECKS * (1 if label in named else len(SUIT_LETTERS))
        if n > most:
            raise UsageError(f"{n} x {label}: no hand can hold more than {most} "
                             f"(a game deals from at most {MOST_DECKS} decks)")


def parse_card(token: str) -> HandCard:
    """``10H``/``qs``/``AD`` as that card, or a bare rank (``7``, ``K``) as any card of it."""
    text = token.strip().upper()
    rank_text = "10" if text == "T" else text
    if rank_text in RANK_NAMES[1:]:
        return HandCard(rank_text, Card.of(RANK_NAMES.index(rank_text), 0))
    if text[-1:] not in SUIT_LETTERS:
        raise UsageError(
            f"bad card {token!r}: expected a card like 10H, QS, AD "
            "or a bare rank (A, 2-10, J, Q, K)"
        )
    try:
        card = Card.parse(text)
    except CardError as exc:
        raise UsageError(str(exc)) from None
    return HandCard(str(card), card)


@dataclass(frozen=True, slots=True)
class ScoreExplanation:
    """A hand's score and how it came about."""

    score: int
    cards: list[HandCard]
    threes: list[HandCard]
    cancelled: list[HandCard]
    counted: list[HandCard]
    text: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, cards as the user wrote them."""
        return {
            "score": self.score,
            "cards": [c.label for c in self.cards],
            "threes": [c.label for c in self.threes],
            "cancelled": [c.label for c in self.cancelled],
            "counted": [c.label for c in self.counted],
            "explanation": self.text,
        }


def explain(cards: list[HandCard], rules: Rules) -> ScoreExplanation:
    """Score ``cards`` under ``rules`` and say why: the engine's ``hand_score`` gives the score
    and its ``cancellations`` which cards the threes cancelled, so the words cannot disagree
    with the number."""
    score = hand_score([c.card for c in cards], rules)
    threes = [c for c in cards if RANK[c.card] == 3]
    others = [c for c in cards if RANK[c.card] != 3]
    if threes and not others:
        text = f"only threes: {len(threes)} x {ONLY_THREES_POINTS} = {score}"
        return ScoreExplanation(score, cards, threes, [], [], text)
    cancelled_at, counted_at = cancellations([c.card for c in cards], rules)
    cancelled = [cards[i] for i in cancelled_at]
    counted = [cards[i] for i in counted_at]
    text = "; ".join(
        [cancel_phrase(threes, cancelled, others, rules), sum_phrase(counted, threes, rules, score)]
    )
    return ScoreExplanation(score, cards, threes, cancelled, counted, text)


def cancel_phrase(
    threes: list[HandCard], cancelled: list[HandCard], others: list[HandCard], rules: Rules
) -> str:
    """Which cards the threes cancelled, and why an eight or a three was left over if one was."""
    if not threes:
        return "no threes, nothing cancelled"
    subject = "the three cancels" if len(threes) == 1 else f"the {len(threes)} threes cancel"
    named = " and ".join(f"{c.label} ({c.points})" for c in cancelled) or "nothing"
    notes = []
    if 0 < len(cancelled) < len(threes):
        notes.append("the other threes have nothing left to cancel")
    if not rules.three_cancels_eight and any(RANK[c.card] == 8 for c in others):
        notes.append("eights are never cancelled under these rules (three_cancels_eight=false)")
    return "; ".join([f"{subject} {named}", *notes])


def sum_phrase(counted: list[HandCard], threes: list[HandCard], rules: Rules, score: int) -> str:
    """The addition that gives the score: each counted card's points, then the threes'."""
    terms = [f"{c.label} {c.points}" for c in counted]
    if threes:
        noun = "three" if len(threes) == 1 else "threes"
        terms.append(f"{len(threes)} {noun} x {rules.three_points}")
    return f"counted {' + '.join(terms)} = {score}"
