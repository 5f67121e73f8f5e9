"""The game state machine: a whole 15-hand (or 8-hand) game of Craits between 2-10 seats.

``Game.new(rules, players, seed)`` deals and runs automatic steps up to the first decision;
``legal_moves()`` lists the moves of the seat to act; ``apply(move)`` validates a move, carries out
everything it causes (card functions, penalties, draws, hand ends, the next deal) and stops at the
next decision. Nothing here does I/O; all randomness comes from RNGs derived from the seed, one per
hand, so the same (rules, players, seed, moves) always give the same event log, and the deal of a
hand does not depend on how earlier hands were played (duplicate deals rely on this).

Seats are numbered 0..players-1; "to the left" (clockwise) is the next index.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Final

from .cards import ACE, CARDS, KING, QUEEN, RANK, SUIT, Card
from .events import Event, EventKind, event
from .functions import Next, Phase, function_table
from .hands import (
    ONE_CARD,
    PRESSURE_DOUBLINGS,
    SINGLE_DECK_MAX,
    HandOver,
    Outcome,
    begin_hand,
    check_given,
    draw_first_dealer,
    end_hand,
    game_deck,
    shuffle,
    shuffle_pressure,
)
from .legal import IllegalMove, explain_illegal, generate_legal, wild_cards
from .moves import Move, MoveKind
from .rules import Rules

__all__ = [  # the names other modules import from here, some defined by job elsewhere
    "MAX_PLAYERS", "MIN_PLAYERS", "PRESSURE_DOUBLINGS", "SINGLE_DECK_MAX", "Game", "IllegalMove",
    "Outcome", "game_deck", "shuffle",
]

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 10


# Enum members bound once: on CPython 3.11 ``Phase.PLAY`` goes through the enum metaclass
# (~180 ns a lookup, ~10 per decision), a module constant costs ~15 ns; ``Final`` makes it a C
# static when the engine is compiled (a plain global is a dictionary lookup there).
_PLAY: Final = Phase.PLAY
_COUNT: Final = Phase.COUNT
_JACKS: Final = Phase.JACKS
_KING: Final = Phase.KING
_GAME_OVER: Final = Phase.GAME_OVER
_KIND_PLAY: Final = MoveKind.PLAY
_KIND_DRAW: Final = MoveKind.DRAW
# The card tables again, as this module's own ``Final`` names: ``cards`` is not compiled (``Card``
# subclasses ``int``), and a compiled module reads another module's names through its dictionary.
_CARDS: Final[tuple[Card, ...]] = CARDS
_RANK: Final[tuple[int, ...]] = RANK
_SUIT: Final[tuple[int, ...]] = SUIT
_ONE_CARD: Final[tuple[tuple[Card], ...]] = ONE_CARD
_COUNT_ADD: Final = {ACE: 1, 2: 2}
_PLAY_EVENT: Final = EventKind.PLAY
_CHOOSE_SUIT_EVENT: Final = EventKind.CHOOSE_SUIT
_DRAW_EVENT: Final = EventKind.DRAW
_COUNT_EVENT: Final = EventKind.COUNT
_COUNT_END: Final = EventKind.COUNT_END
_SKIP: Final = EventKind.SKIP
_REVERSE: Final = EventKind.REVERSE
_KING_EVENT: Final = EventKind.KING
_PENALTY: Final = EventKind.PENALTY
_WENT_OUT: Final = EventKind.WENT_OUT


_UNSEEDED: Final = random.Random(0)
"""The RNG of a game that has not dealt a hand (``Game.at_position`` without a history): shared by
every such game and never drawn from, since a game copies a shared RNG before drawing."""


class Game:
    """A game in progress (mutable; ``clone()`` for look-ahead). See the module docstring."""

    def __init__(self, rules: Rules, players: int, seed: int) -> None:
        """Prefer ``Game.new``; this sets fields only and stops before the first-dealer draw."""
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"Craits needs {MIN_PLAYERS} to {MAX_PLAYERS} players, got {players}")
        self.rules = rules
        self.players = players
        self.seed = seed
        self.decks = 1 if players <= SINGLE_DECK_MAX else 2
        self.deal_sizes = rules.hands_in_game()
        self._functions = function_table(rules)
        # Rules fields read at every decision, copied: ``Rules`` is frozen, and a compiled
        # ``Game`` reads its own fields directly but another class's through ``getattr``.
        self._max_turns = rules.max_turns_per_hand
        self._draw_when_able = rules.draw_when_able
        self._wild_cards = wild_cards(rules)
        self._deck_without = (  # ruling R19: kings and queens stay in from four players on
            frozenset({KING, QUEEN}) if rules.remove_kings_queens and players <= 3 else frozenset()
        )
        self.events: list[Event] = []
        self.hands: list[list[Card]] = [[] for _ in range(players)]
        self.stock: list[Card] = []
        self.discard: list[Card] = []
        self.totals = [0] * players
        self.pressure_counts = [0] * players
        self.pressure_points = [0] * players
        self.forfeits = [0] * players
        self.hand_scores: list[tuple[int, ...]] = []
        self.capped_hands = 0
        self.hand_index = -1
        self.dealer = 0
        self.deal_direction = 1
        self.direction = 1
        self.active_suit = 0
        self.phase = _PLAY
        self.to_act = 0
        self.count = 0
        self.jack_penalty = 0
        self.king_left = 0
        self.turns_in_hand = 0
        self.out_in_count = False
        self.announce_pending: set[int] = set()
        self.outcome: Outcome | None = None
        self._rng = _UNSEEDED
        self._rng_shared = True
        """``_rng`` may be another game's too (``clone``): copied before its first use."""
        self._legal: list[Move] | None = None

    # ----------------------------------------------------------------- construction
    @staticmethod
    def new(rules: Rules, players: int, seed: int) -> Game:
        """A new game, dealt and advanced to the first decision."""
        game = Game(rules, players, seed)
        draw_first_dealer(game)
        begin_hand(game, 0)
        return game

    @staticmethod
    def dealt(
        rules: Rules, hands: Sequence[Sequence[Card]], upturn: Card, stock: Sequence[Card], *,
        dealer: int, hand_index: int = 0, seed: int = 0,
    ) -> Game:
        """A game whose hand ``hand_index`` was dealt ``hands``, not shuffled cards (for scripted
        positions: ``craits check``); ``stock`` is the rest, in the order it will be drawn.

        From the deal on it is ``new``'s game: the deal is logged as a shuffled one is, ``upturn``
        is carried out like any upturned card and play goes on to the first decision. ``seed``
        only drives later reshuffles. ``ValueError`` unless each hand holds the deal size and
        hands, upturn and stock are the game's deck.
        """
        game = Game(rules, len(hands), seed)
        game.dealer = dealer
        given = [list(h) for h in hands], [*reversed(stock), upturn]
        check_given(game, hand_index, *given)
        begin_hand(game, hand_index, given)
        return game

    @staticmethod
    def at_position(
        rules: Rules,
        hands: Sequence[Sequence[Card]],
        discard: Sequence[Card],
        stock: Sequence[Card] = (),
        *,
        to_act: int = 0,
        dealer: int | None = None,
        direction: int = 1,
        phase: Phase = Phase.PLAY,
        active_suit: int | None = None,
        hand_index: int = 0,
        count: int = 0,
        jack_penalty: int = 0,
        king_left: int = 0,
        forfeits: Sequence[int] | None = None,
        announce_pending: Iterable[int] = (),
        totals: Sequence[int] | None = None,
        pressure_counts: Sequence[int] | None = None,
        seed: int = 0,
        history: Sequence[Event] = (),
        out_in_count: bool = False,
        turns_in_hand: int = 0,
        pressure_points: Sequence[int] | None = None,
        hand_scores: Sequence[tuple[int, ...]] = (),
    ) -> Game:
        """A game in an exact position inside hand ``hand_index`` (for tests, and for the SDK's
        sampled worlds: the engine sets its own fields, so a caller need not know how it stores
        them).

        ``discard`` is bottom first (its last card is the top) and ``stock`` in the order it will
        be drawn. ``active_suit`` defaults to the top card's suit, ``dealer`` to the seat before
        ``to_act``. A hand that ends goes on to the next deal as in any game; ``seed`` drives the
        later deals and, when ``history`` is given, this hand's reshuffles too. ``history`` is
        the event log so far (kept as given: a seat's redacted log is fine); ``out_in_count``
        says a player went out during the running count; ``turns_in_hand`` counts towards the
        turn cap; ``pressure_points`` and ``hand_scores`` (earlier hands) feed the outcome.
        """
        players = len(hands)
        game = Game(rules, players, seed)
        game.hand_index = hand_index
        game.phase = phase
        game.to_act = to_act
        game.direction = direction
        game.dealer = (to_act - 1) % players if dealer is None else dealer
        game.hands = [list(h) for h in hands]
        game.discard = list(discard)
        game.stock = list(reversed(stock))
        game.active_suit = SUIT[discard[-1]] if active_suit is None else active_suit
        game.count, game.jack_penalty, game.king_left = count, jack_penalty, king_left
        game.forfeits = [0] * players if forfeits is None else list(forfeits)
        game.announce_pending = set(announce_pending)
        game.totals = [0] * players if totals is None else list(totals)
        game.pressure_counts = [0] * players if pressure_counts is None else list(pressure_counts)
        game.pressure_points = [0] * players if pressure_points is None else list(pressure_points)
        game.hand_scores = list(hand_scores)
        game.out_in_count = out_in_count
        game.turns_in_hand = turns_in_hand
        if history:
            game.events = list(history)
            game._rng = random.Random(f"craits:{seed}:hand:{hand_index}")
            game._rng_shared = False
        return game

    def clone(self) -> Game:
        """An independent copy (for look-ahead); the event log is shared up to now, copied after."""
        # Every changing field by name: a compiled Game has no __dict__ to copy, nor a __new__
        # that skips __init__ (a test checks that no field is left out).
        other = Game(self.rules, self.players, self.seed)
        other.events = list(self.events)
        other.hands = [list(h) for h in self.hands]
        other.stock = list(self.stock)
        other.discard = list(self.discard)
        other.totals = list(self.totals)
        other.pressure_counts = list(self.pressure_counts)
        other.pressure_points = list(self.pressure_points)
        other.forfeits = list(self.forfeits)
        other.hand_scores = list(self.hand_scores)
        other.capped_hands, other.hand_index = self.capped_hands, self.hand_index
        other.dealer, other.deal_direction = self.dealer, self.deal_direction
        other.direction, other.active_suit = self.direction, self.active_suit
        other.phase, other.to_act, other.count = self.phase, self.to_act, self.count
        other.jack_penalty, other.king_left = self.jack_penalty, self.king_left
        other.turns_in_hand, other.out_in_count = self.turns_in_hand, self.out_in_count
        other.announce_pending = set(self.announce_pending)
        other.outcome = self.outcome
        other._rng = self._rng  # shared until one of the two draws from it (``_own_rng``)
        other._rng_shared = self._rng_shared = True
        other._legal = self._legal
        return other

    def _own_rng(self) -> random.Random:
        """This game's RNG, copied first if another game may hold it too: copying its 2.5 KB
        state at every ``clone`` was most of a clone's cost, and few clones ever draw from it
        (only a reshuffle within the hand does)."""
        if self._rng_shared:
            own = random.Random()
            own.setstate(self._rng.getstate())
            self._rng, self._rng_shared = own, False
        return self._rng

    # ----------------------------------------------------------------- queries
    @property
    def is_over(self) -> bool:
        """True once the last hand has been scored."""
        return self.phase is _GAME_OVER

    @property
    def top_card(self) -> Card:
        """The card on top of the discard pile."""
        return self.discard[-1]

    @property
    def hand_number(self) -> int:
        """1-based number of the hand being played."""
        return self.hand_index + 1

    def next_seat(self, seat: int) -> int:
        """The seat after ``seat`` in the current direction of play."""
        return (seat + self.direction) % self.players

    def legal_moves(self) -> list[Move]:
        """Every legal move of the seat to act (``to_act``), in a stable order. Empty when over."""
        legal = self._legal
        if legal is None:
            legal = self._legal = generate_legal(self)
        return legal

    # ----------------------------------------------------------------- applying moves
    def check(self, move: Move) -> None:
        """Raise ``IllegalMove`` (naming the rule) if ``apply(move)`` would refuse it."""
        legal = self.legal_moves()
        if move in legal or (not move.one_card and move.announced(True) in legal):
            return
        raise explain_illegal(self, move)

    def apply(self, move: Move) -> None:
        """Validate ``move`` for the seat to act and carry it out up to the next decision.

        A move that omits a required "one card" announcement is legal but penalised; any other
        deviation raises ``IllegalMove`` naming the rule, and leaves the game unchanged.
        """
        legal = self.legal_moves()
        if move not in legal:
            if move.one_card or move.announced(True) not in legal:
                raise explain_illegal(self, move)
            forgot = True
        else:
            forgot = False
        self._legal = None
        seat = self.to_act
        self.turns_in_hand += 1  # ruling R25: the cap counts decisions, which bounds a hand's moves
        try:
            self._apply_checked(seat, move, forgot)
            if self.turns_in_hand >= self._max_turns:
                raise HandOver("cap")  # ruling R26: scored as it stands, the record says cap
        except HandOver as over:
            end_hand(self, over)

    def _apply_checked(self, seat: int, move: Move, forgot: bool) -> None:
        if seat in self.announce_pending:
            # ruling R9: the deal announcement is due with the first decision, whatever it is,
            # and covers a play that leaves one card too (one penalty, not two); ruling R8: a
            # missed one is paid before the move, as it was due on the deal.
            self.announce_pending.discard(seat)
            if forgot:
                self._announce_penalty(seat, "deal_announce")
                forgot = False
        if move.kind is _KIND_PLAY:
            self._play(seat, move, forgot)
        elif move.kind is _KIND_DRAW:
            self._draw_move(seat)
        else:
            self._choose_suit(seat, move.suit)

    def _play(self, seat: int, move: Move, forgot: bool) -> None:
        index: int = move.card
        card = _CARDS[index]
        hand = self.hands[seat]
        hand.remove(card)
        self.discard.append(card)
        self.events.append(
            event(_PLAY_EVENT, seat, _ONE_CARD[index], int(move.one_card), move.suit)
        )
        if forgot:  # ruling R8: called once the card has left the hand, before its function
            self._announce_penalty(seat, "one_card")
        rank = _RANK[index]
        self.active_suit = move.suit if move.suit >= 0 else _SUIT[index]
        phase = self.phase
        if phase is _COUNT:
            self.count += _COUNT_ADD[rank]
            self.events.append(event(_COUNT_EVENT, value=self.count))
            self._after_play(seat, (self.next_seat(seat), _COUNT, False))
        elif phase is _JACKS:
            self._after_play(seat, self._functions[rank](self, seat, card))
        elif phase is _KING and self.king_left > 1:
            # ruling R13: the first two cards of a king's sequence were legal plays (announced
            # when they leave one card); only their functions are left out here.
            self.king_left -= 1
            self.events.append(event(_KING_EVENT, seat, value=self.king_left))
            self._after_play(seat, (seat, _KING, True))
        else:
            self.king_left = 0
            self._after_play(seat, self._functions[rank](self, seat, card))

    def _after_play(self, seat: int, nxt: Next) -> None:
        """Go on to ``nxt`` unless the player just went out."""
        if self.hands[seat]:
            self._go_to(nxt)
            return
        self.events.append(event(_WENT_OUT, seat))
        next_seat, phase, _ = nxt
        if phase is _COUNT:
            self.out_in_count = True
            self._start_turn(next_seat, _COUNT)
            return
        if phase is _JACKS:
            # ruling R12: the jacks hit at once whoever would face them: the hand is over, so
            # there is no turn to answer with a jack (and a forfeit does not pass them on).
            self._start_turn(next_seat, _JACKS)
            self.draw(self.to_act, self.jack_penalty, "jack")
            self.jack_penalty = 0
        raise HandOver("out")

    def _draw_move(self, seat: int) -> None:
        phase = self.phase
        if phase is _COUNT:
            # ruling R14: the last A or 2 stays the top card, its suit the active suit, and play
            # resumes with the next player (a 2 played on it starts a new count).
            # ruling R22: when the count comes round to the player who went out, nobody scores
            # the going-out points; ruling R23: under count_out_continues, a count ended by
            # anyone else still ends the hand.
            came_round = not self.hands[seat]  # to a player who went out during the count
            self.draw(seat, self.count, "count")
            self.events.append(event(_COUNT_END, seat, value=self.count))
            self.count = 0
            if self.out_in_count:
                self.out_in_count = False
                if not self.rules.count_out_continues or not all(self.hands):
                    # with count_out_continues, the hand ends only for another player who is out
                    raise HandOver("out", not came_round or self.rules.count_out_continues)
        elif phase is _JACKS:  # ruling R4: losing the turn to jacks serves no forfeit
            self.draw(seat, self.jack_penalty, "jack")
            self.jack_penalty = 0
            self.log_skip(seat, "jack")
        else:
            self.king_left = 0
            self.draw(seat, 1, "unable")
        self._start_turn(self.next_seat(seat), _PLAY)

    def _choose_suit(self, seat: int, suit: int) -> None:
        self.active_suit = suit
        self.events.append(event(_CHOOSE_SUIT_EVENT, seat, aux=suit))
        self._go_to((self.next_seat(seat), _PLAY, False))

    # ----------------------------------------------------------------- steps used by functions
    def draw(self, seat: int, n: int, why: str) -> None:
        """``seat`` draws ``n`` cards, under shuffle pressure when the stock runs out: the one
        who draws pays it, whoever's card caused the draw (ruling R24)."""
        stock = self.stock
        if n == 1 and stock:  # most draws: one card, no reshuffle (nothing allocated)
            card = stock.pop()
            self.hands[seat].append(card)
            self.events.append(event(_DRAW_EVENT, seat, _ONE_CARD[card], 1, -1, why, True))
            return
        got: list[Card] = []
        try:
            for _ in range(n):
                if not stock:
                    shuffle_pressure(self, seat)
                    stock = self.stock
                got.append(stock.pop())
        finally:
            if got:
                self.hands[seat].extend(got)
                self.events.append(event(_DRAW_EVENT, seat, tuple(got), len(got), -1, why, True))

    def start_count(self, value: int) -> None:
        """A two begins the count."""
        self.count = value
        self.events.append(event(_COUNT_EVENT, value=value))

    def add_jack_penalty(self) -> None:
        """A jack adds two cards to what the next player must draw unless they play a jack."""
        self.jack_penalty += 2

    def start_king_sequence(self, seat: int) -> None:
        """A king obliges its player to play three more cards."""
        self.king_left = 3
        self.events.append(event(_KING_EVENT, seat, value=3))

    def reverse(self) -> None:
        """A ten reverses the direction of play."""
        self.direction = -self.direction
        self.events.append(event(_REVERSE, value=self.direction))

    def log_skip(self, seat: int, why: str) -> None:
        """Record that ``seat`` loses a turn (the caller moves play past it)."""
        self.events.append(event(_SKIP, seat, detail=why))

    # ----------------------------------------------------------------- turn flow
    def _go_to(self, nxt: Next) -> None:
        seat, phase, continues = nxt
        if continues:
            self.to_act, self.phase = seat, phase
        else:
            self._start_turn(seat, phase)

    def _start_turn(self, seat: int, phase: Phase) -> None:
        """Give ``seat`` a new turn, passing a turn of normal play on while the seat has forfeited
        turns to serve. A turn facing the count or jacks is never passed on (docs/rules.md,
        ruling R2): a penalty must not let a seat escape what another player's card put on it,
        and with two players the obligation would come back to the player who started it."""
        if phase is _PLAY:
            forfeits = self.forfeits
            while forfeits[seat]:
                forfeits[seat] -= 1
                self.log_skip(seat, "forfeit")
                seat = self.next_seat(seat)
        self.to_act = seat
        self.phase = phase

    def _announce_penalty(self, seat: int, why: str) -> None:
        cards, forfeit = (1, 0) if self.rules.idiot_card else (2, 1)
        self.events.append(event(_PENALTY, seat, (), cards, forfeit, why))
        self.forfeits[seat] += forfeit
        self.draw(seat, cards, "penalty")
