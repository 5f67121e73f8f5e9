"""Scripted positions for ``craits check``: one for every kind of decision a bot must handle.

A bot can play hundreds of games without ever facing a dealer's upturned nine or a king run, so
the conformance kit puts it in each on purpose. Every position is a real engine ``Game``, dealt
by the engine from chosen cards (``Game.dealt``), so its history (hand start, shuffle, the deal,
the upturn) and the upturned card's effect are the engine's own. Lead-in moves (a 2 that starts
the count, a jack, the bot's own 6 or king) go through ``Game.apply`` for the same reason. The
checked bot sits at seat 0 of a three-player table.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

from craits.engine import Card, Game, Move, Rules, preset
from craits.engine.cards import build_deck

PLAYERS: Final = 3
STANDARD: Final = preset("standard")
FACE_CARDS: Final = STANDARD.replace(face_cards=True)
DEAL_ANNOUNCE: Final = STANDARD.replace(announce_on_one_card_deal=True)

Expectation = Callable[[Move], str | None]
"""Judges a legal move beyond legality: the problem with it, or None when it is right."""


def _any_legal(move: Move) -> str | None:
    return None


def announces(move: Move) -> str | None:
    """A move that must carry the "one card" announcement (legal without it, but penalised)."""
    if move.one_card:
        return None
    return (
        f"{move} does not announce 'one card' (the referee accepts it but penalises the seat: "
        "two cards and a lost turn); answer the listed move, which carries the announcement"
    )


@dataclass(frozen=True, slots=True)
class Position:
    """A named decision for seat 0, what it tests in words, and how to judge the answer."""

    name: str
    about: str
    build: Callable[[], Game]
    expect: Expectation = field(default=_any_legal)


def dealt(
    hands: Sequence[str], top: str, *, dealer: int, rules: Rules = STANDARD,
    size: int | None = None, lead_in: Sequence[str] = (), seed: int = 0,
) -> Game:
    """A hand just dealt with ``top`` upturned, then ``lead_in`` moves applied.

    ``hands[i]`` lists cards seat i must hold; each hand is filled up to the deal size (the
    longest listed hand, or ``size``) from the rest of the deck, which becomes the stock. The
    upturn is carried out as in any game: play starts at the dealer's left after a card without
    a function, and an upturned 8 or 9 asks the dealer for a suit.
    """
    held = [Card.parse(c) for h in hands for c in h.split()] + [Card.parse(top)]
    rest = [c for c in build_deck(1) if c not in held]
    random.Random(seed).shuffle(rest)
    want = size or max(len(h.split()) for h in hands)
    cards = []
    for h in hands:
        mine = [Card.parse(c) for c in h.split()]
        cards.append(mine + [rest.pop() for _ in range(want - len(mine))])
    game = Game.dealt(rules, cards, Card.parse(top), rest, dealer=dealer,
                      hand_index=rules.hands_in_game().index(want))
    for text in lead_in:
        game.apply(Move.parse(text))
    return game


def upturned(top: str) -> Game:
    """Seat 0 dealt and turned up an 8 or a 9: it must name the suit before anyone plays."""
    return dealt(["", "", ""], top, dealer=0, size=6)


POSITIONS: Final[tuple[Position, ...]] = (
    Position("play", "a normal turn: 5 cards on an upturned 3H, several plays possible",
             lambda: dealt(["7H KD 3C 10S 8D", "", ""], "3H", dealer=2)),
    Position("count", "the count (a 2 was just played): must play an A or a 2",
             lambda: dealt(["AS 2C 7H 9D KC", "", "2H"], "3H", dealer=1,
                           lead_in=["play 2H"])),
    Position("count-draw", "the count with no A or 2 in hand: must draw the count",
             lambda: dealt(["7H 9D KC 4S 10C", "", "2H"], "3H", dealer=1,
                           lead_in=["play 2H"])),
    Position("eight", "only an 8 is playable: the play must name the new suit",
             lambda: dealt(["8C 5D KS 4C", "", ""], "3H", dealer=2)),
    Position("nine", "only a 9 is playable: keep its suit or switch to the same colour",
             lambda: dealt(["9H 4C KS 5D", "", ""], "3H", dealer=2)),
    Position("six-again", "the bot just played a 6 and must play again",
             lambda: dealt(["6H 7H 6C 5S JC", "", ""], "3H", dealer=2,
                           lead_in=["play 6H"])),
    Position("one-card", "2 cards: the play leaves one card and must announce it",
             lambda: dealt(["7H 5S", "", ""], "3H", dealer=2), announces),
    Position("upturn-8", "the bot dealt and turned up an 8: name any suit",
             lambda: upturned("8D")),
    Position("upturn-9", "the bot dealt and turned up a 9: keep its suit or switch colour-mate",
             lambda: upturned("9S")),
    Position("draw", "nothing is playable: must draw",
             lambda: dealt(["7C 5S KD 4D", "", ""], "3H", dealer=2)),
    Position("jacks", "face cards on, a jack was played: pass it on with a J (draw 2 without)",
             lambda: dealt(["JS 7C 4D 9H 5C", "", "JH"], "3H", dealer=1, rules=FACE_CARDS,
                           lead_in=["play JH"])),
    Position("king", "face cards on, the bot just played a king: 3 more cards in sequence",
             lambda: dealt(["KH 5H 7H 9C 2D 10S", "", ""], "3H", dealer=2, rules=FACE_CARDS,
                           lead_in=["play KH"])),
    Position("deal-announce", "announce_on_one_card_deal in the 1-card hand: nothing playable, "
             "the draw must announce 'one card'",
             lambda: dealt(["7C", "", ""], "3H", dealer=2, rules=DEAL_ANNOUNCE), announces),
)
"""Every scripted decision, in the order ``craits check`` asks them."""


def position(name: str) -> Position:
    """The scripted position called ``name`` (``KeyError`` lists the known names)."""
    for p in POSITIONS:
        if p.name == name:
            return p
    raise KeyError(f"no position {name!r}; known: {', '.join(p.name for p in POSITIONS)}")

