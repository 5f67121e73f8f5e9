"""A hand from its deal to its score: the deck of a game, the shuffle, the draw for the first
dealer, the deal of each hand (or the check of a deal given instead of shuffled) and its upturned
card; the stock running out (shuffle pressure); the end of a hand, its scores, and the game's
outcome after the last one.

Every random outcome here comes from an RNG derived from the seed: the first dealer's from the
seed alone, each hand's from the seed and the hand's number, so the deal of a hand
does not depend on how earlier hands were played (duplicate deals rely on this). Functions take
the ``Game`` they set up: they are a part of it kept in a module of their own, by job.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, TypeVar

from .cards import CARDS, DRAW_ORDER, KING, QUEEN, RANK, SUIT, Card, build_deck
from .events import EventKind, event
from .functions import Phase
from .rules import Rules
from .scoring import hand_score, places

if TYPE_CHECKING:
    from .state import Game

SINGLE_DECK_MAX: Final = 5
"""More players than this play with two decks."""

Dealt = tuple[list[list[Card]], list[Card]]
"""A hand's deal: each seat's cards, and the rest of the deck (drawn from its end)."""

PRESSURE_DOUBLINGS: Final = 20
"""The shuffle-pressure penalty doubles 20 times at most: from the 21st time in a game it stays
5 * 2**20 = 5,242,880 points (docs/rules.md, ruling R28). Unbounded, it passed 2**31 (the old
wire fields) after 29 pressures and 2**63 after 61, which play with ``draw_when_able`` reaches;
bounded, no total a game can reach passes 2**53, so every score is exact in every language's
numbers, JSON's included."""


class HandOver(Exception):
    """Raised inside a step when the hand must end at once (shuffle pressure with nothing left).

    ``going_out`` is False when nobody scores the going-out points, though a hand is empty: the
    count came round to the player who went out (RULINGS: "nobody gets the going-out points").
    """

    def __init__(self, reason: str, going_out: bool = True) -> None:
        super().__init__(reason)
        self.reason = reason
        self.going_out = going_out


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended: totals (lower is better), places (1 = best, ties share)."""

    totals: tuple[int, ...]
    places: tuple[int, ...]
    hands_played: int
    hand_scores: tuple[tuple[int, ...], ...]
    """Per hand, each seat's card score for that hand (penalties not included)."""
    pressure_points: tuple[int, ...]
    """Per seat, the shuffle-pressure penalty points of the whole game."""
    capped_hands: int
    """How many hands ended at the safety cap."""


# Enum members bound once, as ``Final`` names (C statics when compiled: see ``state``).
_CHOOSE_SUIT: Final = Phase.CHOOSE_SUIT
_GAME_OVER: Final = Phase.GAME_OVER
_DEALER_DRAW: Final = EventKind.DEALER_DRAW
_FIRST_DEALER: Final = EventKind.FIRST_DEALER
_HAND_START: Final = EventKind.HAND_START
_SHUFFLE: Final = EventKind.SHUFFLE
_DEAL: Final = EventKind.DEAL
_UPTURN: Final = EventKind.UPTURN
_PRESSURE: Final = EventKind.PRESSURE
_RESHUFFLE: Final = EventKind.RESHUFFLE
_HAND_SCORE: Final = EventKind.HAND_SCORE
_HAND_END: Final = EventKind.HAND_END
_GAME_END: Final = EventKind.GAME_END
_FINAL: Final = EventKind.FINAL
ONE_CARD: Final[tuple[tuple[Card], ...]] = tuple((c,) for c in CARDS)
"""An event's cards when it is one card (an upturn, a play, most draws): shared, not built per
event (each new tuple is one more object for the garbage collector to visit, and its
collections were a sixth of a compiled decision)."""


def game_deck(rules: Rules, players: int) -> list[Card]:
    """Every card a hand of this game is dealt from, unshuffled (two decks above five players;
    ``remove_kings_queens`` at two or three): what a seat reasons about when it counts cards.
    The variant is ignored from four players on (ruling R19), so one rules value serves every
    table size of a tournament."""
    decks = 1 if players <= SINGLE_DECK_MAX else 2
    without = frozenset({KING, QUEEN}) if rules.remove_kings_queens and players <= 3 else None
    return build_deck(decks, without or frozenset())


_Item = TypeVar("_Item")


def shuffle(rng: random.Random, cards: list[_Item]) -> None:
    """``rng.shuffle(cards)`` exactly: CPython's Fisher-Yates with the same draws of random bits
    (``_randbelow``), so every deal is what it always was (tests/engine/test_exact_games.py
    checks both). Written out because the compiled engine runs it as C, where ``random``'s own
    shuffle is Python code: a deal of 52 cards costs as much as 50 decisions otherwise. Public
    (``craits.engine.shuffle``) for the SDK's sampled worlds, which shuffle as often as they
    deal."""
    bits = rng.getrandbits
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = bits(k)
        while j >= n:
            j = bits(k)
        cards[i], cards[j] = cards[j], cards[i]


def draw_first_dealer(game: Game) -> None:
    """Each player draws; lowest (2 low, A high) deals; the tied redraw among themselves."""
    rng = random.Random(f"craits:{game.seed}:first-dealer")
    deck = build_deck(game.decks)  # ruling R20: the full deck, even without kings and queens
    shuffle(rng, deck)
    contenders = list(range(game.players))
    round_no = 1
    while True:
        drawn = {seat: deck.pop() for seat in contenders}
        for seat, card in drawn.items():
            game.events.append(event(_DEALER_DRAW, seat, (card,), round_no))
        low = min(DRAW_ORDER[RANK[c]] for c in drawn.values())
        contenders = [s for s, c in drawn.items() if DRAW_ORDER[RANK[c]] == low]
        if len(contenders) == 1:
            break
        round_no += 1
    game.dealer = contenders[0]
    game.events.append(event(_FIRST_DEALER, game.dealer))


def begin_hand(game: Game, index: int, given: Dealt | None = None) -> None:
    """Deal hand ``index`` (the ``given`` cards, if any) and carry out the upturned card,
    ending hands that end at once (the hands after such a hand are shuffled as usual)."""
    while True:
        try:
            deal(game, index, given)
            given = None
            _upturn(game)
            return
        except HandOver as over:
            if not score_hand(game, over.reason, over.going_out):
                return
            index += 1


def _upturn(game: Game) -> None:
    """The stock's top card is turned up and counts as played by the dealer."""
    card = game.stock.pop()
    dealer = game.dealer
    game.discard.append(card)
    game.active_suit = SUIT[card]
    game.events.append(event(_UPTURN, dealer, ONE_CARD[card]))
    if RANK[card] in (8, 9):  # ruling R18: the dealer's suit choice is a decision of its own
        game.to_act, game.phase = dealer, _CHOOSE_SUIT
        return
    game._go_to(game._functions[RANK[card]](game, dealer, card))


def end_hand(game: Game, over: HandOver) -> None:
    """Score the hand that ``over`` ended, and deal the next unless the game is over."""
    if score_hand(game, over.reason, over.going_out):
        begin_hand(game, game.hand_index + 1)


def deal(game: Game, index: int, given: Dealt | None) -> None:
    """Start hand ``index``: reset what a hand resets, shuffle and deal (or take the ``given``
    deal), up to the upturn, which the game carries out itself."""
    game.hand_index = index
    size = game.deal_sizes[index]
    game.turns_in_hand = 0
    game.count = game.jack_penalty = game.king_left = 0
    game.out_in_count = False
    game.forfeits = [0] * game.players  # ruling R1: a penalty belongs to its own hand
    game.events.append(event(_HAND_START, game.dealer, (), size, index + 1))
    # ruling R21: a fresh deck shuffled from the seed and the hand number alone, so deals
    # do not depend on earlier play (duplicate deals rely on it).
    game._rng = random.Random(f"craits:{game.seed}:hand:{index}")
    game._rng_shared = False
    n = game.players
    order = [(game.dealer + game.deal_direction * (i + 1)) % n for i in range(n)]
    dealt, deck = _shuffle_and_deal(game, size, order) if given is None else given
    game.events.append(event(_SHUFFLE, value=size * n + len(deck)))
    for seat in order:
        game.events.append(event(_DEAL, seat, tuple(dealt[seat]), size, -1, "", True))
    game.hands = dealt
    game.direction = 1  # ruling R17: play starts clockwise, whichever way the deal went
    game.stock = deck
    game.discard = []
    game.announce_pending = (  # ruling R9: every seat owes the deal announcement
        set(range(n)) if size == 1 and game.rules.announce_on_one_card_deal else set()
    )
    game._legal = None


def _shuffle_and_deal(game: Game, size: int, order: Sequence[int]) -> Dealt:
    """The hand's deck shuffled by its RNG, dealt one card at a time in ``order``."""
    deck = build_deck(game.decks, game._deck_without)
    shuffle(game._own_rng(), deck)
    dealt: list[list[Card]] = [[] for _ in range(game.players)]
    for _ in range(size):
        for seat in order:
            dealt[seat].append(deck.pop())
    return dealt, deck


def check_given(game: Game, index: int, hands: list[list[Card]], deck: list[Card]) -> None:
    """Refuse a given deal that no shuffle could produce (see ``Game.dealt``)."""
    size = game.deal_sizes[index]
    if any(len(hand) != size for hand in hands):
        raise ValueError(f"hand {index + 1} deals {size} cards to each seat")
    cards = sorted([*(c for hand in hands for c in hand), *deck])
    if cards != sorted(build_deck(game.decks, game._deck_without)):
        raise ValueError("the hands, the upturn and the stock must be the game's whole deck")


def shuffle_pressure(game: Game, seat: int) -> None:
    """``seat`` must draw from an empty stock: it pays the shuffle-pressure penalty, and the
    discard pile but its top card is shuffled into a new stock, or the hand ends when there is
    nothing to shuffle."""
    # ruling R28: the penalty stops doubling at PRESSURE_DOUBLINGS, so totals stay exact.
    points = 5 << min(game.pressure_counts[seat], PRESSURE_DOUBLINGS)
    game.pressure_counts[seat] += 1
    game.pressure_points[seat] += points
    game.totals[seat] += points
    game.events.append(event(_PRESSURE, seat, (), points, game.pressure_counts[seat]))
    if len(game.discard) <= 1:
        raise HandOver("pressure")
    pile = game.discard[:-1]
    del game.discard[:-1]
    shuffle(game._own_rng(), pile)
    game.stock = pile
    game.events.append(event(_RESHUFFLE, seat, (), len(pile)))


def score_hand(game: Game, reason: str, going_out: bool) -> bool:
    """Score the hand that just ended; start the next dealer. False when the game is over.

    An empty hand scores the going-out points, every one of them (ruling R22: each player
    who went out is out), or nothing when ``going_out`` is False."""
    rules = game.rules
    out = rules.going_out_points if going_out else 0
    scores = tuple(hand_score(h, rules) if h else out for h in game.hands)
    for seat, (cards, score) in enumerate(zip(game.hands, scores, strict=True)):
        game.totals[seat] += score
        game.events.append(event(_HAND_SCORE, seat, tuple(cards), score, game.totals[seat]))
    game.events.append(event(_HAND_END, -1, (), game.hand_index + 1, -1, reason))
    game.hand_scores.append(scores)
    if reason == "cap":
        game.capped_hands += 1
    step = -1 if rules.dealer_follows_direction and game.direction < 0 else 1
    game.dealer = (game.dealer + step) % game.players
    game.deal_direction = step
    game._legal = None
    if game.hand_index + 1 < len(game.deal_sizes):
        return True
    _finish_game(game)
    return False


def _finish_game(game: Game) -> None:
    game.phase = _GAME_OVER
    final = places(game.totals)
    game.events.append(event(_GAME_END, value=len(game.hand_scores)))
    for seat in range(game.players):
        game.events.append(event(_FINAL, seat, (), game.totals[seat], final[seat]))
    game.outcome = Outcome(
        totals=tuple(game.totals),
        places=tuple(final),
        hands_played=len(game.hand_scores),
        hand_scores=tuple(game.hand_scores),
        pressure_points=tuple(game.pressure_points),
        capped_hands=game.capped_hands,
    )
