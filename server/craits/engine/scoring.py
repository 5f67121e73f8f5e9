"""End-of-hand scoring and final places.

Kept apart from the state machine because players, bots and the CLI (``craits rules score``)
all want to score a hand on its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from .cards import RANK
from .rules import Rules

CARD_POINTS: Final = (0, 1, 20, 3, 15, 30, 30, 20, 50, 30, 25, 10, 10, 10)
"""Points of a card left in hand, by rank (index 3, the three, is overridden by the rules)."""

ONLY_THREES_POINTS: Final = -50
"""Each three in a hand that holds nothing but threes."""


def hand_score(cards: Iterable[int], rules: Rules) -> int:
    """The end-of-hand score of the cards a player still holds (not for the player who went out).

    Each three may cancel one other non-three card; cancelling the highest-valued cancellable
    cards is optimal because every cancellation removes exactly one card's points. Eights are
    cancellable only when ``rules.three_cancels_eight``.
    """
    ranks = [RANK[c] for c in cards]
    threes = ranks.count(3)
    others = sorted((CARD_POINTS[r] for r in ranks if r != 3 and r != 8), reverse=True)
    eights = [CARD_POINTS[8]] * ranks.count(8)
    if threes and not others and not eights:
        return ONLY_THREES_POINTS * threes
    if rules.three_cancels_eight:
        cancellable, kept = eights + others, []
    else:
        cancellable, kept = others, eights
    return sum(cancellable[threes:]) + sum(kept) + threes * rules.three_points


def places(totals: Sequence[int]) -> list[int]:
    """Competition ranking, lowest total first: equal totals share a place (1, 2, 2, 4)."""
    return [1 + sum(1 for other in totals if other < t) for t in totals]
