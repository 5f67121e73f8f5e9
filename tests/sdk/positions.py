"""Two-player positions just after seat 0 led the 3D, whose answer says something about seat 1's
hand: for the tests of worlds sampled from a view and of the bots that search them."""

from __future__ import annotations

import random

from craits.engine import Card, Game, Move, preset
from craits.engine.cards import RANK, SUIT, build_deck
from tests.engine.helpers import cards


def answered_3d(theirs: str, answer: Move) -> Game:
    """Two players, seat 1 deals the upturned 3C; seat 0 (dealt 3D KH KS QH QS JH JS 10H) plays
    3D and seat 1, dealt ``theirs``, makes ``answer``. Seat 0 is to act."""
    mine = cards("3D KH KS QH QS JH JS 10H")
    upturn = Card.parse("3C")
    rest = [c for c in build_deck(1) if c not in {*mine, *cards(theirs), upturn}]
    random.Random(0).shuffle(rest)
    game = Game.dealt(preset("standard"), [mine, cards(theirs)], upturn, rest, dealer=1)
    game.apply(Move.play(Card.parse("3D")))
    game.apply(answer)
    assert game.to_act == 0
    return game


def unable_to_follow() -> Game:
    """Seat 1, holding no three, no diamond and no eight, draws on 3D (``answered_3d``)."""
    return answered_3d("AH 2H 4H 5H 6H 7H 9H AS", Move.draw())


def could_follow_3d(card: int) -> bool:
    """Whether ``card`` may answer the 3D: a three, an eight or a diamond."""
    return RANK[card] in (3, 8) or SUIT[card] == 1


def shed_low() -> Game:
    """Seat 1 (dealt AD 9D KD 5S 6S 7S JC 2C) answers 3D with AD, though 9D and KD were
    playable too (``answered_3d``)."""
    return answered_3d("AD 9D KD 5S 6S 7S JC 2C", Move.play(Card.parse("AD")))
