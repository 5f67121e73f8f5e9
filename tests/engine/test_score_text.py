"""Hands written as text, and the words that explain their score."""

from __future__ import annotations

import random

import pytest

from craits.engine import CARDS, PRESETS, hand_score
from craits.engine.score_text import HandError, explain, parse_card, parse_hand
from craits.engine.scoring import CARD_POINTS


def test_explanation_agrees_with_engine_on_random_hands() -> None:
    """The explanation's own arithmetic must give the engine's score, under every preset."""
    rng = random.Random(5)
    for _ in range(2000):
        rules = rng.choice(list(PRESETS.values()))
        hand = [parse_card(str(rng.choice(CARDS))) for _ in range(rng.randint(1, 9))]
        result = explain(hand, rules)
        assert result.score == hand_score([c.card for c in hand], rules)
        if len(result.threes) < len(hand):  # not the only-threes case
            counted = sum(CARD_POINTS[c.card.rank] for c in result.counted)
            assert counted + len(result.threes) * rules.three_points == result.score
        assert len(result.cancelled) <= len(result.threes)


def test_bare_ranks_keep_their_labels_and_full_cards_their_names() -> None:
    hand = parse_hand(["A,3", "10h qs"])
    assert [c.label for c in hand] == ["A", "3", "10H", "QS"]
    # face points; a three's points come from the rules
    assert [c.points for c in hand if c.label != "3"] == [1, 25, 10]


def test_impossible_hands_are_hand_errors_not_card_errors() -> None:
    """The CLI turns ``HandError`` into a usage error; a ``CardError`` would escape it."""
    for texts in ([" , "], ["1H"], ["AH"] * 3):
        with pytest.raises(HandError):
            parse_hand(texts)
