"""Cards as small typed integers with a text form that round-trips (``10H``, ``QS``, ``AD``).

A card is an ``int`` subclass so that hands and piles stay plain lists of integers for speed,
while ``str(card)`` and ``Card.parse`` give the text form. Every card value is interned in
``CARDS``; code that builds cards should index that table rather than call ``Card(...)``.
Two decks hold two equal copies of each card: cards carry no deck identity.
"""

from __future__ import annotations

from typing import Final

SUIT_LETTERS: Final = "CDHS"
"""Suit letters indexed by suit number: clubs, diamonds, hearts, spades."""

RANK_NAMES: Final = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
"""Rank names indexed by rank number (1 = ace ... 13 = king)."""

ACE, JACK, QUEEN, KING = 1, 11, 12, 13
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3

SAME_COLOUR: Final = (SPADES, HEARTS, DIAMONDS, CLUBS)
"""The other suit of the same colour (the nine's switch): C<->S, D<->H."""

DRAW_ORDER: Final = (0, 13, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)
"""Rank strength for the first-dealer draw: 2 lowest (1) ... A highest (13)."""


class CardError(ValueError):
    """A card's text form could not be parsed."""


class Card(int):
    """One playing card: ``(rank - 1) * 4 + suit``; ``str`` gives ``10H``, ``QS``, ``AD``."""

    __slots__ = ()

    @property
    def rank(self) -> int:
        """1 (ace) to 13 (king)."""
        return self // 4 + 1

    @property
    def suit(self) -> int:
        """0 clubs, 1 diamonds, 2 hearts, 3 spades."""
        return self % 4

    def __str__(self) -> str:
        return RANK_NAMES[self // 4 + 1] + SUIT_LETTERS[self % 4]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    @staticmethod
    def of(rank: int, suit: int) -> Card:
        """The interned card of that rank (1-13) and suit (0-3)."""
        if not (1 <= rank <= 13 and 0 <= suit <= 3):
            raise CardError(f"no card with rank {rank} and suit {suit}")
        return CARDS[(rank - 1) * 4 + suit]

    @staticmethod
    def parse(text: str) -> Card:
        """Parse ``10H``, ``qs``, ``AD``, ``8C`` (case-insensitive; ``T`` is accepted for 10)."""
        t = text.strip().upper()
        if len(t) < 2 or t[-1] not in SUIT_LETTERS:
            raise CardError(
                f"bad card {text!r}: expected a rank (A,2-10,J,Q,K) then a suit (C,D,H,S)"
            )
        rank_text = "10" if t[:-1] == "T" else t[:-1]
        if rank_text not in RANK_NAMES[1:]:
            raise CardError(f"bad card {text!r}: unknown rank {t[:-1]!r} (use A,2-10,J,Q,K)")
        return Card.of(RANK_NAMES.index(rank_text), SUIT_LETTERS.index(t[-1]))


CARDS: Final[tuple[Card, ...]] = tuple(Card(i) for i in range(52))
"""All 52 distinct cards, interned, indexed by their integer value."""

RANK: Final[tuple[int, ...]] = tuple(c.rank for c in CARDS)
"""``RANK[card]``: a lookup table faster than the property in hot loops."""

SUIT: Final[tuple[int, ...]] = tuple(c.suit for c in CARDS)
"""``SUIT[card]``: a lookup table faster than the property in hot loops."""


def parse_suit(text: str) -> int:
    """Parse a suit letter (``C``, ``D``, ``H``, ``S``, any case)."""
    t = text.strip().upper()
    if len(t) != 1 or t not in SUIT_LETTERS:
        raise CardError(f"bad suit {text!r}: expected one of C, D, H, S")
    return SUIT_LETTERS.index(t)


def parse_cards(texts: list[str] | tuple[str, ...]) -> list[Card]:
    """Parse several cards; the error names the first bad one."""
    return [Card.parse(t) for t in texts]


def format_cards(cards: list[Card] | tuple[Card, ...] | list[int]) -> str:
    """Cards as space-separated text, in the order given."""
    return " ".join(str(CARDS[c]) for c in cards)


def build_deck(decks: int, without_ranks: frozenset[int] = frozenset()) -> list[Card]:
    """An unshuffled deck: ``decks`` copies of every card whose rank is not excluded (every
    hand's deal builds one: the whole-deck case is a plain copy)."""
    if not without_ranks:
        return list(CARDS) * decks
    return [c for _ in range(decks) for c in CARDS if RANK[c] not in without_ranks]
