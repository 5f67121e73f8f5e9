"""Legal moves: which cards a seat may play (the one statement of that rule), the moves of the
seat to act, and, when a move is refused, which rule refuses it.

The rule of what may be played is a set of cards, held as a 52-bit mask (bit ``c`` for card
``c``): ``playable(top, active_suit, wild)`` in normal play, ``COUNT_CARDS`` in the count and
``JACK_CARDS`` against jacks. The engine lists its legal moves from it,
and the SDK's sampled worlds (``craits_sdk.worlds``) read from it what a seat that drew instead
of playing cannot have held, so the two never disagree about the rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from .cards import CARDS, JACK, RANK, SAME_COLOUR, SUIT, SUIT_LETTERS, Card
from .functions import Phase
from .moves import DRAW, DRAW_ANNOUNCED, Move, MoveKind
from .rules import Rules

if TYPE_CHECKING:
    from .state import Game


class IllegalMove(ValueError):
    """A move the rules do not allow here; ``rule`` names the rule that forbids it."""

    def __init__(self, move: Move, rule: str, reason: str) -> None:
        try:
            text = str(move)
        except IndexError:  # a hand-built move naming no real card or suit
            text = repr(tuple(move))
        super().__init__(f"illegal move {text!r}: {reason} (rule: {rule})")
        self.move = move
        self.rule = rule
        self.reason = reason


def _mask(cards: list[Card]) -> int:
    bits = 0
    for card in cards:
        bits |= 1 << card
    return bits


_CARD_BIT: Final[tuple[int, ...]] = tuple(1 << c for c in range(len(CARDS)))
"""Each card's bit: ``mask & _CARD_BIT[c]`` is the compiled engine's fast test (mypyc does
``&`` on small integers natively but boxes both sides of a ``>>``)."""
_RANK_CARDS: Final[tuple[int, ...]] = tuple(
    _mask([c for c in CARDS if c.rank == rank]) for rank in range(14)
)
"""The cards of each rank (1-13), as a mask."""
_SUIT_CARDS: Final[tuple[int, ...]] = tuple(
    _mask([c for c in CARDS if c.suit == suit]) for suit in range(4)
)
"""The cards of each suit, as a mask."""
COUNT_CARDS: Final[int] = _RANK_CARDS[1] | _RANK_CARDS[2]
"""What may be played during the count: an A or a 2."""
JACK_CARDS: Final[int] = _RANK_CARDS[JACK]
"""What may be played against pending jacks: any J of any suit, and only a J."""

_COUNT: Final = Phase.COUNT
_JACKS: Final = Phase.JACKS
_KING: Final = Phase.KING
_CHOOSE_SUIT: Final = Phase.CHOOSE_SUIT
_GAME_OVER: Final = Phase.GAME_OVER
_KIND_DRAW: Final = MoveKind.DRAW
_KIND_CHOOSE_SUIT: Final = MoveKind.CHOOSE_SUIT
_RANK_: Final[tuple[int, ...]] = RANK
"""``cards.RANK`` as this module's own ``Final`` name (a C static when compiled; ``cards`` is not
compiled, and a compiled module reads another module's names through its dictionary)."""


def wild_cards(rules: Rules) -> int:
    """The cards playable on anything (a mask): the 8s, and the 9s under ``nines_wild``."""
    return _RANK_CARDS[8] | (_RANK_CARDS[9] if rules.nines_wild else 0)


def playable(top: int, active_suit: int, wild: int) -> int:
    """The cards a seat may play in normal play or a king's run (a mask): a card matching the
    rank of the top card ``top`` or ``active_suit``, or one of ``wild`` (``wild_cards``), which
    may be played on anything. In the count the rule is ``COUNT_CARDS``, against jacks
    ``JACK_CARDS``."""
    return _RANK_CARDS[_RANK_[top]] | _SUIT_CARDS[active_suit] | wild


def _play_options() -> tuple[tuple[tuple[Move, ...], ...], ...]:
    """For each card and announcement flag, the play moves of that card (8: 4 suits; 9: 2).

    A 9 keeps its suit or switches within its colour even when ``nines_wild`` lets it be played
    on anything (ruling R15): the variant makes it wild to play, its function stays the same."""
    table = []
    for card in CARDS:
        per_flag = []
        for flag in (False, True):
            if card.rank == 8:
                opts = tuple(Move.play(card, s, flag) for s in range(4))
            elif card.rank == 9:
                opts = (Move.play(card, -1, flag), Move.play(card, SAME_COLOUR[card.suit], flag))
            else:
                opts = (Move.play(card, -1, flag),)
            per_flag.append(opts)
        table.append(tuple(per_flag))
    return tuple(table)


_PLAY_OPTIONS: Final = _play_options()
_DRAW_RULE: Final = {_COUNT: "the count", _JACKS: "jack", _KING: "king"}
"""The rule a refused draw breaks, by phase (elsewhere: a normal turn)."""


def generate_legal(game: Game) -> list[Move]:
    """Every legal move of the seat to act, in a stable order (``Game.legal_moves`` caches it).

    A part of ``Game`` kept in its own module by job: it reads the game's private fields too."""
    phase = game.phase
    if phase is _GAME_OVER:
        return []
    seat = game.to_act
    hand = game.hands[seat]
    pending = seat in game.announce_pending
    if phase is _CHOOSE_SUIT:
        top = game.discard[-1]
        suits = range(4) if RANK[top] == 8 else (SUIT[top], SAME_COLOUR[SUIT[top]])
        return [Move.choose_suit(s, pending) for s in suits]
    # ruling R10: only a play from two cards leaves one; going out needs no announcement.
    flag = pending or len(hand) == 2
    moves: list[Move] = []
    if phase is _COUNT:
        allowed = COUNT_CARDS
    elif phase is _JACKS:  # ruling R11: facing jacks, any J of any suit, and only a J
        allowed = JACK_CARDS
    else:
        allowed = playable(game.discard[-1], game.active_suit, game._wild_cards)
    options, bit = _PLAY_OPTIONS, _CARD_BIT
    c: int  # a card as a plain int: a native integer when compiled, so the tables index fast
    for c in hand:
        if allowed & bit[c]:
            moves.extend(options[c][flag])
    if game.decks > 1 and len(moves) > 1:
        moves = list(dict.fromkeys(moves))
    if not moves or game._draw_when_able:  # ruling R16: in every phase that offers a draw
        moves.append(DRAW_ANNOUNCED if pending else DRAW)
    return moves


def explain_illegal(game: Game, move: Move) -> IllegalMove:
    """Why ``move`` is not legal now, naming the rule (only computed on failure)."""
    if game.phase is _GAME_OVER:
        return IllegalMove(move, "end of the game", "the game is over")
    legal = game.legal_moves()
    if move.one_card and move.announced(False) in legal:  # ruling R7: an untrue announcement
        return IllegalMove(
            move, "one card", "announced 'one card' but this move does not leave one card"
        )
    if game.phase is _CHOOSE_SUIT:
        if move.kind is not _KIND_CHOOSE_SUIT:
            return IllegalMove(
                move, "upturned card", "the dealer must first name a suit, e.g. 'suit H'"
            )
        return IllegalMove(
            move, "nine", "after an upturned 9 only its suit or the other suit of its colour"
        )
    if move.kind is _KIND_CHOOSE_SUIT:
        return IllegalMove(
            move, "upturned card", "'suit' is only for the dealer's upturned 8 or 9"
        )
    if move.kind is _KIND_DRAW:
        rule = _DRAW_RULE.get(game.phase, "a turn")
        return IllegalMove(
            move, rule, "you can play, and drawing while able to play is not allowed "
            "(variant draw_when_able)"
        )
    if not 0 <= move.card < len(CARDS) or not -1 <= move.suit <= 3:
        return IllegalMove(move, "a turn", "no such card or suit")
    return _explain_illegal_play(game, move, game.to_act)


def _explain_illegal_play(game: Game, move: Move, seat: int) -> IllegalMove:
    card = CARDS[move.card]
    if card not in game.hands[seat]:
        return IllegalMove(move, "a turn", f"{card} is not in your hand")
    if game.phase is _COUNT:
        return IllegalMove(
            move, "the count", f"during the count (now {game.count}) only an A or a 2"
        )
    if game.phase is _JACKS:
        return IllegalMove(
            move, "jack", f"jacks are pending ({game.jack_penalty} cards): play a J or draw"
        )
    if card.rank == 8 and move.suit < 0:
        return IllegalMove(move, "eight", "an 8 must name a suit, e.g. 'play 8C suit=H'")
    if card.rank == 9 and move.suit not in (-1, SAME_COLOUR[card.suit]):
        return IllegalMove(
            move, "nine", f"a 9 may only switch to {SUIT_LETTERS[SAME_COLOUR[card.suit]]} "
            "(same colour) or keep its suit (no suit=)",
        )
    if move.suit >= 0 and card.rank not in (8, 9):
        return IllegalMove(move, "a turn", "only an 8 or a 9 names a suit")
    top = game.discard[-1]
    return IllegalMove(
        move, "a turn", f"{card} matches neither the rank of {top} nor the active suit "
        f"{SUIT_LETTERS[game.active_suit]}, and is not wild",
    )
