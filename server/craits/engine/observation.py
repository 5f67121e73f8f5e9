"""What one seat may see: ``observe(game, seat)`` is the only way information leaves the engine
toward a bot.

An observation holds the seat's own hand, the public state (top card, active suit, direction,
count, pending jacks, king sequence, every seat's hand size, stock and discard sizes, scores,
forfeits, shuffle-pressure counts), the event history as this seat saw it (other seats' dealt and
drawn cards removed; stock order never logged), and the legal moves when this seat is to act.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, NamedTuple

from .cards import CARDS, SUIT_LETTERS, Card
from .events import Event
from .functions import Phase
from .moves import Move
from .state import Game


class Observation(NamedTuple):
    """One seat's view of a game at one moment.

    A named tuple, like ``Event``: read-only, and built in a third of the time a frozen dataclass
    takes (one is built for every decision the referee asks).
    """

    seat: int
    players: int
    hand_number: int
    hands_in_game: int
    deal_size: int
    dealer: int
    direction: int
    """1 = clockwise (to higher seat numbers), -1 = counter-clockwise."""
    phase: Phase
    to_act: int
    hand: tuple[Card, ...]
    """This seat's cards, sorted."""
    hand_sizes: tuple[int, ...]
    stock_size: int
    discard_size: int
    top_card: Card
    active_suit: int
    count: int  # type: ignore[assignment]  # the game's term; hides tuple.count, unused here
    """The count's value, 0 when no count is running."""
    jack_penalty: int
    """Cards the seat facing jacks must draw, 0 when none are pending."""
    king_left: int
    """Cards still to play in the current king sequence, 0 when none."""
    forfeits: tuple[int, ...]
    totals: tuple[int, ...]
    pressure_counts: tuple[int, ...]
    legal_moves: tuple[Move, ...]
    """Empty unless this seat is to act."""
    events: tuple[Event, ...]
    """History from ``events_from`` on, redacted for this seat."""
    events_from: int

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form with cards, suits and moves as text (the pipe-bot line format):
        every field under its own name, lists for tuples, text where ``_AS_TEXT`` says."""
        out: dict[str, Any] = {}
        for name, value in zip(_FIELDS, self, strict=True):
            text = _AS_TEXT.get(name)
            if text is not None:
                out[name] = text(value)
            elif isinstance(value, tuple):
                out[name] = list(value)
            else:
                out[name] = value
        return out


_FIELDS: Final = Observation._fields
_AS_TEXT: Final[dict[str, Callable[[Any], Any]]] = {
    "phase": lambda phase: phase.name.lower(),
    "hand": lambda hand: [str(c) for c in hand],
    "top_card": str,
    "active_suit": lambda suit: SUIT_LETTERS[suit],
    "legal_moves": lambda moves: [str(m) for m in moves],
    "events": lambda events: [e.to_dict() for e in events],
}
"""The fields whose JSON form is text, or a list of dictionaries (the rest are integers or
lists of integers, written as they are)."""

_new_tuple: Final = tuple.__new__


def observe(game: Game, seat: int, since: int = 0) -> Observation:
    """``seat``'s view of ``game``, with the history from event index ``since`` on.

    Built with ``tuple.__new__`` and the fields in declaration order, not the named tuple's
    keyword constructor (Python code that binds 24 keywords): the referee and the in-process
    lane observe before every decision.
    """
    if not 0 <= seat < game.players:
        raise ValueError(f"no seat {seat} in a {game.players}-player game")
    to_act = game.to_act
    legal = tuple(game.legal_moves()) if to_act == seat and not game.is_over else ()
    discard = game.discard
    return _new_tuple(Observation, (
        seat, game.players, game.hand_number, len(game.deal_sizes),
        game.deal_sizes[game.hand_index], game.dealer, game.direction, game.phase, to_act,
        tuple(sorted(game.hands[seat])), tuple(map(len, game.hands)), len(game.stock),
        len(discard), discard[-1] if discard else CARDS[0], game.active_suit, game.count,
        game.jack_penalty, game.king_left, tuple(game.forfeits), tuple(game.totals),
        tuple(game.pressure_counts), legal, tuple([e.seen_by(seat) for e in game.events[since:]]),
        since,
    ))
