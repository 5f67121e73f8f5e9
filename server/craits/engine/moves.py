"""Moves: the decisions the rules give a player, as interned values with a text form.

Text forms (round-trip through ``Move.parse`` and ``str``):

- ``play 7H`` / ``play 8C suit=H`` / ``play 9H suit=D`` / ``play 4S one-card``
- ``draw`` (cannot play; in the count or against jacks: take the cards), ``draw one-card``
- ``suit H`` (the dealer's choice for an upturned 8 or 9; for a 9, its own suit keeps it)

``suit=`` is required for an eight and names the new suit; on a nine it is optional and may only
name the other suit of the same colour. ``one-card`` is the "one card" announcement.
Moves are interned: ``Move.play(card)`` returns the same object each time, so legal-move lists
cost no allocation and moves compare by identity or by value alike.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final, NamedTuple

from .cards import CARDS, SUIT_LETTERS, Card, CardError, parse_suit


class MoveError(ValueError):
    """A move's text form could not be parsed."""


class MoveKind(IntEnum):
    """What sort of decision a move is."""

    PLAY = 1
    DRAW = 2
    CHOOSE_SUIT = 3


class Move(NamedTuple):
    """One decision. ``card`` is -1 and ``suit`` is -1 where they do not apply."""

    kind: MoveKind
    card: int = -1
    suit: int = -1
    one_card: bool = False

    def __str__(self) -> str:
        if self.kind is MoveKind.DRAW:
            text = "draw"
        elif self.kind is MoveKind.CHOOSE_SUIT:
            text = f"suit {SUIT_LETTERS[self.suit]}"
        else:
            text = f"play {CARDS[self.card]}"
            if self.suit >= 0:
                text += f" suit={SUIT_LETTERS[self.suit]}"
        return text + " one-card" if self.one_card else text

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"

    @property
    def played(self) -> Card | None:
        """The card this move plays, if any."""
        return CARDS[self.card] if self.kind is MoveKind.PLAY else None

    def announced(self, flag: bool = True) -> Move:
        """The same move with the "one card" announcement set or cleared."""
        return _intern(self.kind, self.card, self.suit, flag)

    @staticmethod
    def play(card: int, suit: int = -1, one_card: bool = False) -> Move:
        """The interned move playing ``card`` (naming ``suit`` for an 8 or a 9's switch)."""
        return _intern(MoveKind.PLAY, card, suit, one_card)

    @staticmethod
    def draw(one_card: bool = False) -> Move:
        """The interned draw move."""
        return DRAW_ANNOUNCED if one_card else DRAW

    @staticmethod
    def choose_suit(suit: int, one_card: bool = False) -> Move:
        """The interned dealer's suit choice for an upturned 8 or 9."""
        return _intern(MoveKind.CHOOSE_SUIT, -1, suit, one_card)

    @staticmethod
    def parse(text: str) -> Move:
        """Parse a move's text form; the error says which part is wrong and what was expected.

        Case does not matter, but the words keep theirs so that an error quotes what was typed.
        """
        words = text.split()
        one_card = False
        if words and words[-1].lower() in ("one-card", "one_card", "onecard"):
            one_card = True
            words = words[:-1]
        if not words:
            raise MoveError(
                f"empty move {text!r}: expected 'play CARD [suit=S] [one-card]' or 'draw'"
            )
        try:
            return _PARSERS[words[0].lower()](words[1:], one_card)
        except KeyError:
            raise MoveError(
                f"bad move {text!r}: starts with {words[0]!r}; expected play, draw or suit"
            ) from None
        except CardError as exc:
            raise MoveError(f"bad move {text!r}: {exc}") from None


def _parse_play(args: list[str], one_card: bool) -> Move:
    if len(args) not in (1, 2):
        raise MoveError("'play' takes a card and optionally suit=S, e.g. 'play 8C suit=H'")
    card = Card.parse(args[0])
    suit = -1
    if len(args) == 2:
        key, _, value = args[1].partition("=")
        if key.lower() != "suit":
            raise MoveError(f"unknown play option {args[1]!r}: only suit=S is allowed")
        suit = parse_suit(value)
    return Move.play(card, suit, one_card)


def _parse_draw(args: list[str], one_card: bool) -> Move:
    if args:
        raise MoveError("'draw' takes no arguments")
    return Move.draw(one_card)


def _parse_suit(args: list[str], one_card: bool) -> Move:
    if len(args) != 1:
        raise MoveError("'suit' takes one suit letter, e.g. 'suit H'")
    return Move.choose_suit(parse_suit(args[0]), one_card)


_PARSERS: Final = {"play": _parse_play, "draw": _parse_draw, "suit": _parse_suit}

_TABLE: dict[tuple[int, int, int, bool], Move] = {}


def _intern(kind: MoveKind, card: int, suit: int, one_card: bool) -> Move:
    key = (kind, card, suit, one_card)
    move = _TABLE.get(key)
    if move is None:
        move = _TABLE[key] = Move(kind, card, suit, one_card)
    return move


DRAW: Final = _intern(MoveKind.DRAW, -1, -1, False)
DRAW_ANNOUNCED: Final = _intern(MoveKind.DRAW, -1, -1, True)
