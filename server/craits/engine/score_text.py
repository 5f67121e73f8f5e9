"""A hand written as text, and its score explained in words: what ``craits rules score`` shows.

People score a hand at the table from cards they read off, often as bare ranks (``A 3 3 6 7 9
K``), and what they get wrong is which cards the threes cancel. So the explanation names those
cards, taking them from ``scoring.cancellations`` (the rule ``hand_score`` applies) so the words
cannot disagree with the number. Pure: errors are ``HandError`` with a message for the user.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from .cards import RANK, RANK_NAMES, SUIT_LETTERS, Card, CardError
from .rules import Rules
from .scoring import CARD_POINTS, ONLY_THREES_POINTS, cancellations, hand_score
from .state import MAX_PLAYERS, SINGLE_DECK_MAX

MOST_DECKS: Final = 1 if MAX_PLAYERS <= SINGLE_DECK_MAX else 2
"""The most decks any game deals from (bigger tables play with two)."""

_SEPARATORS: Final = re.compile(r"[,\s]+")


class HandError(ValueError):
    """The text is not a hand any deal could give: no cards, a bad card, too many copies."""


@dataclass(frozen=True, slots=True)
class HandCard:
    """A card as the user wrote it: ``label`` keeps a bare rank bare (``7``, not ``7C``)."""

    label: str
    card: Card

    @property
    def points(self) -> int:
        """Face points (a three's points come from the rules, not from here)."""
        return CARD_POINTS[RANK[self.card]]


def parse_hand(texts: Sequence[str]) -> list[HandCard]:
    """Parse cards given as separate words and/or comma-separated lists."""
    tokens = [t for text in texts for t in _SEPARATORS.split(text) if t]
    if not tokens:
        raise HandError("give at least one card, e.g. A 3 3 6 7 9 K")
    cards = [parse_card(t) for t in tokens]
    check_copies(cards)
    return cards


def check_copies(cards: Sequence[HandCard]) -> None:
    """Refuse a hand no deal can give: a card more often than there are decks, or a rank (a
    bare one stands for any card of it) more often than the decks hold it."""
    named = Counter(c.label for c in cards if c.label != RANK_NAMES[c.card.rank])
    ranks = Counter(RANK_NAMES[c.card.rank] for c in cards)
    for label, n in itertools.chain(named.items(), ranks.items()):
        most = MOST_DECKS * (1 if label in named else len(SUIT_LETTERS))
        if n > most:
            raise HandError(f"{n} x {label}: no hand can hold more than {most} "
                            f"(a game deals from at most {MOST_DECKS} decks)")


def parse_card(token: str) -> HandCard:
    """``10H``/``qs``/``AD`` as that card, or a bare rank (``7``, ``K``) as any card of it."""
    text = token.strip().upper()
    rank_text = "10" if text == "T" else text
    if rank_text in RANK_NAMES[1:]:
        return HandCard(rank_text, Card.of(RANK_NAMES.index(rank_text), 0))
    if text[-1:] not in SUIT_LETTERS:
        raise HandError(
            f"bad card {token!r}: expected a card like 10H, QS, AD "
            "or a bare rank (A, 2-10, J, Q, K)"
        )
    try:
        card = Card.parse(text)
    except CardError as exc:
        raise HandError(str(exc)) from None
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
