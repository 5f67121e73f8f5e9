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

    The cards the threes leave uncancelled (see ``cancellations``) score their points and every
    three scores ``rules.three_points``; a hand of nothing but threes scores
    ``ONLY_THREES_POINTS`` a three.
    """
    ranks = [RANK[c] for c in cards]
    threes = ranks.count(3)
    if not threes:  # most hands: a bot scoring its candidate moves asks this many times a move
        return sum(CARD_POINTS[r] for r in ranks)
    if threes == len(ranks):
        return ONLY_THREES_POINTS * threes
    _, counted = _cancel(ranks, threes, rules)
    return sum(CARD_POINTS[ranks[i]] for i in counted) + threes * rules.three_points


def cancellations(cards: Sequence[int], rules: Rules) -> tuple[list[int], list[int]]:
    """Which cards the threes cancel and which other cards still count, as positions in ``cards``.

    Positions, not cards, so a caller holding labelled cards (``craits rules score``) can say
    which of two equal cards it meant. Threes are in neither list.
    """
    ranks = [RANK[c] for c in cards]
    return _cancel(ranks, ranks.count(3), rules)


def _cancel(ranks: list[int], threes: int, rules: Rules) -> tuple[list[int], list[int]]:
    """The one statement of the cancelling rule, so scores and their explanation cannot drift.

    Each three may cancel one other card. Cancelling the highest-valued cancellable cards is
    optimal because every cancellation removes exactly one card's points; equal points go in
    hand order. Eights are cancellable only when ``rules.three_cancels_eight``.
    """
    others = [i for i, r in enumerate(ranks) if r != 3]
    cancellable = [i for i in others if ranks[i] != 8 or rules.three_cancels_eight]
    cancellable.sort(key=lambda i: -CARD_POINTS[ranks[i]])
    cancelled = cancellable[:threes]
    return cancelled, [i for i in others if i not in cancelled]


def places(totals: Sequence[int]) -> list[int]:
    """Competition ranking, lowest total first: equal totals share a place (1, 2, 2, 4), the
    usual convention, which needs no tie-break the sources do not give (ruling R27)."""
    return [1 + sum(1 for other in totals if other < t) for t in totals]
