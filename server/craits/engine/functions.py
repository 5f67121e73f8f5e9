"""Card functions as a dispatch table: rank -> a small named step.

A function applies the effect of a card just played (draws, reversal, the count) and says who
acts next: ``(seat, phase, continues)``, where ``continues`` is true when the same player goes on
with the same turn (a six's replay, a king's sequence) rather than a new turn starting, which is
what consumes a forfeited turn. Variants swap entries (``face_cards`` adds J, Q and K), they do not
add ``if``s to the state machine. Functions receive the game as ``GameLike`` to avoid an import
cycle with ``state``.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import IntEnum
from typing import TYPE_CHECKING, Final

from .cards import ACE, JACK, KING, QUEEN, SPADES, SUIT
from .rules import Rules

if TYPE_CHECKING:
    from .state import Game


class Phase(IntEnum):
    """What kind of decision the seat to act faces."""

    PLAY = 1
    """A normal turn: play a card matching rank or active suit, or an 8; else draw one."""
    COUNT = 2
    """The count: play an A or a 2, or draw as many cards as the count."""
    JACKS = 3
    """Jacks pending (face cards): play a J to pass it on, or draw the penalty and lose the turn."""
    KING = 4
    """A king's sequence: play a card legal on the last one, or draw one and end the turn."""
    CHOOSE_SUIT = 5
    """The dealer names the suit for an upturned 8 (any suit) or 9 (its own or the same colour)."""
    GAME_OVER = 6
    """Nothing to decide: the game has ended."""


Next = tuple[int, Phase, bool]
# Bound once: an enum attribute lookup is ~10x slower than a module constant, and a ``Final``
# one is a C static when the engine is compiled (a plain global is a dictionary lookup).
_PLAY: Final = Phase.PLAY
_COUNT: Final = Phase.COUNT
_JACKS: Final = Phase.JACKS
_KING: Final = Phase.KING
CardFunction = Callable[["Game", int, int], Next]


def _none(game: Game, seat: int, card: int) -> Next:
    return game.next_seat(seat), _PLAY, False


def _two(game: Game, seat: int, card: int) -> Next:
    game.start_count(2)
    return game.next_seat(seat), _COUNT, False


def _four(game: Game, seat: int, card: int) -> Next:
    # ruling R4: the skip is the card's effect, logged only: it does not serve a forfeit.
    # ruling R6: with two players the seat after the skipped one is the player of the 4, who
    # plays again as a new turn (which does serve a forfeit).
    skipped = game.next_seat(seat)
    game.log_skip(skipped, "four")
    return game.next_seat(skipped), _PLAY, False


def _five(game: Game, seat: int, card: int) -> Next:
    # ruling R5: everyone else draws, a forfeit pending or not: drawing is not taking a turn.
    other = game.next_seat(seat)
    while other != seat:
        game.draw(other, 1, "five")
        other = game.next_seat(other)
    return game.next_seat(seat), _PLAY, False


def _six(game: Game, seat: int, card: int) -> Next:
    # ruling R3: the replay continues the same turn (``continues``), so it serves no forfeit.
    return seat, _PLAY, True


def _seven(game: Game, seat: int, card: int) -> Next:
    # ruling R5: the next player draws even with a forfeit pending (their turn is then passed).
    victim = game.next_seat(seat)
    game.draw(victim, 1, "seven")
    return victim, _PLAY, False


def _ten(game: Game, seat: int, card: int) -> Next:
    game.reverse()
    return game.next_seat(seat), _PLAY, False


def _jack(game: Game, seat: int, card: int) -> Next:
    game.add_jack_penalty()
    return game.next_seat(seat), _JACKS, False


def _queen(game: Game, seat: int, card: int) -> Next:
    # ruling R5: the next player draws five, a forfeit pending or not; ruling R4: the skip is
    # the card's effect and does not serve that forfeit.
    if SUIT[card] != SPADES:
        return _none(game, seat, card)
    victim = game.next_seat(seat)
    game.draw(victim, 5, "queen")
    game.log_skip(victim, "queen")
    return game.next_seat(victim), _PLAY, False


def _king(game: Game, seat: int, card: int) -> Next:
    # ruling R3: the sequence continues the same turn (``continues``), so it serves no forfeit.
    game.start_king_sequence(seat)
    return seat, _KING, True


_BASE: Final[dict[int, CardFunction]] = {
    ACE: _none, 2: _two, 3: _none, 4: _four, 5: _five, 6: _six, 7: _seven,
    8: _none, 9: _none, 10: _ten, JACK: _none, QUEEN: _none, KING: _none,
}
"""Functions without face cards; 8 and 9's suit choice is part of the play, not the function."""

_FACE: Final[dict[int, CardFunction]] = {JACK: _jack, QUEEN: _queen, KING: _king}


def function_table(rules: Rules) -> tuple[CardFunction, ...]:
    """Index by rank (1-13) to get the card's function under ``rules`` (one table per variant,
    built once: every new game and every clone asks)."""
    table = _TABLES.get(rules.face_cards)
    if table is None:
        functions = dict(_BASE)
        if rules.face_cards:
            functions.update(_FACE)
        table = _TABLES[rules.face_cards] = (_none, *(functions[r] for r in range(1, 14)))
    return table


_TABLES: Final[dict[bool, tuple[CardFunction, ...]]] = {}
