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
from dataclasses import dataclass
from typing import Final, TypeVar

from .cards import (
    ACE,
    CARDS,
    DRAW_ORDER,
    JACK,
    KING,
    QUEEN,
    RANK,
    SAME_COLOUR,
    SUIT,
    SUIT_LETTERS,
    Card,
    build_deck,
)
from .events import Event, event
from .functions import Next, Phase, function_table
from .moves import DRAW, DRAW_ANNOUNCED, Move, MoveKind
from .rules import Rules
from .scoring import hand_score, places

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 10
SINGLE_DECK_MAX: Final = 5
"""More players than this play with two decks."""


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


PRESSURE_DOUBLINGS: Final = 20
"""The shuffle-pressure penalty doubles 20 times at most: from the 21st time in a game it stays
5 * 2**20 = 5,242,880 points (docs/rules.md, ruling R28). Unbounded, it passed 2**31 (the old
wire fields) after 29 pressures and 2**63 after 61, which play with ``draw_when_able`` reaches;
bounded, no total a game can reach passes 2**53, so every score is exact in every language's
numbers, JSON's included."""


def game_deck(rules: Rules, players: int) -> list[Card]:
    """Every card a hand of this game is dealt from, unshuffled (two decks above five players;
    ``remove_kings_queens`` at two or three): what a seat reasons about when it counts cards.
    The variant is ignored from four players on (ruling R19), so one rules value serves every
    table size of a tournament."""
    decks = 1 if players <= SINGLE_DECK_MAX else 2
    without = frozenset({KING, QUEEN}) if rules.remove_kings_queens and players <= 3 else None
    return build_deck(decks, without or frozenset())


_Dealt = tuple[list[list[Card]], list[Card]]
"""A hand's deal: each seat's cards, and the rest of the deck (drawn from its end)."""


class _HandOver(Exception):
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
_PLAIN_PLAY: Final = tuple(tuple(Move.play(c, -1, f) for f in (False, True)) for c in CARDS)
# Enum members bound once: on CPython 3.11 ``Phase.PLAY`` goes through the enum metaclass
# (~180 ns a lookup, ~10 per decision), a module constant costs ~15 ns; ``Final`` makes it a C
# static when the engine is compiled (a plain global is a dictionary lookup there).
_PLAY: Final = Phase.PLAY
_COUNT: Final = Phase.COUNT
_JACKS: Final = Phase.JACKS
_KING: Final = Phase.KING
_CHOOSE_SUIT: Final = Phase.CHOOSE_SUIT
_GAME_OVER: Final = Phase.GAME_OVER
_KIND_PLAY: Final = MoveKind.PLAY
_KIND_DRAW: Final = MoveKind.DRAW
_KIND_CHOOSE_SUIT: Final = MoveKind.CHOOSE_SUIT
# The card tables again, as this module's own ``Final`` names: ``cards`` is not compiled (``Card``
# subclasses ``int``), and a compiled module reads another module's names through its dictionary.
_CARDS: Final[tuple[Card, ...]] = CARDS
_RANK: Final[tuple[int, ...]] = RANK
_SUIT: Final[tuple[int, ...]] = SUIT
_ONE_CARD: Final[tuple[tuple[Card], ...]] = tuple((c,) for c in CARDS)
"""An event's cards when it is one card (a play, most draws): shared, not built per event (each
new tuple is one more object for the garbage collector to visit, and its collections were a
sixth of a compiled decision)."""
_COUNT_ADD: Final = {ACE: 1, 2: 2}
_DRAW_RULE: Final = {_COUNT: "the count", _JACKS: "jack", _KING: "king"}
"""The rule a refused draw breaks, by phase (elsewhere: a normal turn)."""


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
        self._wild_ranks = frozenset({8, 9}) if rules.nines_wild else frozenset({8})
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
        game._draw_first_dealer()
        game._begin_hand(0)
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
        game._check_given(hand_index, *given)
        game._begin_hand(hand_index, given)
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
            legal = self._legal = self._generate_legal()
        return legal

    # ----------------------------------------------------------------- applying moves
    def check(self, move: Move) -> None:
        """Raise ``IllegalMove`` (naming the rule) if ``apply(move)`` would refuse it."""
        legal = self.legal_moves()
        if move in legal or (not move.one_card and move.announced(True) in legal):
            return
        raise self._explain_illegal(move)

    def apply(self, move: Move) -> None:
        """Validate ``move`` for the seat to act and carry it out up to the next decision.

        A move that omits a required "one card" announcement is legal but penalised; any other
        deviation raises ``IllegalMove`` naming the rule, and leaves the game unchanged.
        """
        legal = self.legal_moves()
        if move not in legal:
            if move.one_card or move.announced(True) not in legal:
                raise self._explain_illegal(move)
            forgot = True
        else:
            forgot = False
        self._legal = None
        seat = self.to_act
        self.turns_in_hand += 1  # ruling R25: the cap counts decisions, which bounds a hand's moves
        try:
            self._apply_checked(seat, move, forgot)
            if self.turns_in_hand >= self._max_turns:
                raise _HandOver("cap")  # ruling R26: scored as it stands, the record says cap
        except _HandOver as over:
            self._end_hand(over)

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
        self.events.append(event("play", seat, _ONE_CARD[index], int(move.one_card), move.suit))
        if forgot:  # ruling R8: called once the card has left the hand, before its function
            self._announce_penalty(seat, "one_card")
        rank = _RANK[index]
        self.active_suit = move.suit if move.suit >= 0 else _SUIT[index]
        phase = self.phase
        if phase is _COUNT:
            self.count += _COUNT_ADD[rank]
            self.events.append(event("count", value=self.count))
            self._after_play(seat, (self.next_seat(seat), _COUNT, False))
        elif phase is _JACKS:
            self._after_play(seat, self._functions[rank](self, seat, card))
        elif phase is _KING and self.king_left > 1:
            # ruling R13: the first two cards of a king's sequence were legal plays (announced
            # when they leave one card); only their functions are left out here.
            self.king_left -= 1
            self.events.append(event("king", seat, value=self.king_left))
            self._after_play(seat, (seat, _KING, True))
        else:
            self.king_left = 0
            self._after_play(seat, self._functions[rank](self, seat, card))

    def _after_play(self, seat: int, nxt: Next) -> None:
        """Go on to ``nxt`` unless the player just went out."""
        if self.hands[seat]:
            self._go_to(nxt)
            return
        self.events.append(event("went_out", seat))
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
        raise _HandOver("out")

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
            self.events.append(event("count_end", seat, value=self.count))
            self.count = 0
            if self.out_in_count:
                self.out_in_count = False
                if not self.rules.count_out_continues or not all(self.hands):
                    # with count_out_continues, the hand ends only for another player who is out
                    raise _HandOver("out", not came_round or self.rules.count_out_continues)
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
        self.events.append(event("choose_suit", seat, aux=suit))
        self._go_to((self.next_seat(seat), _PLAY, False))

    # ----------------------------------------------------------------- steps used by functions
    def draw(self, seat: int, n: int, why: str) -> None:
        """``seat`` draws ``n`` cards, under shuffle pressure when the stock runs out: the one
        who draws pays it, whoever's card caused the draw (ruling R24)."""
        stock = self.stock
        if n == 1 and stock:  # most draws: one card, no reshuffle (nothing allocated)
            card = stock.pop()
            self.hands[seat].append(card)
            self.events.append(event("draw", seat, _ONE_CARD[card], 1, -1, why, True))
            return
        got: list[Card] = []
        try:
            for _ in range(n):
                if not stock:
                    self._shuffle_pressure(seat)
                    stock = self.stock
                got.append(stock.pop())
        finally:
            if got:
                self.hands[seat].extend(got)
                self.events.append(event("draw", seat, tuple(got), len(got), -1, why, True))

    def start_count(self, value: int) -> None:
        """A two begins the count."""
        self.count = value
        self.events.append(event("count", value=value))

    def add_jack_penalty(self) -> None:
        """A jack adds two cards to what the next player must draw unless they play a jack."""
        self.jack_penalty += 2

    def start_king_sequence(self, seat: int) -> None:
        """A king obliges its player to play three more cards."""
        self.king_left = 3
        self.events.append(event("king", seat, value=3))

    def reverse(self) -> None:
        """A ten reverses the direction of play."""
        self.direction = -self.direction
        self.events.append(event("reverse", value=self.direction))

    def log_skip(self, seat: int, why: str) -> None:
        """Record that ``seat`` loses a turn (the caller moves play past it)."""
        self.events.append(event("skip", seat, detail=why))

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
        self.events.append(event("penalty", seat, (), cards, forfeit, why))
        self.forfeits[seat] += forfeit
        self.draw(seat, cards, "penalty")

    def _shuffle_pressure(self, seat: int) -> None:
        # ruling R28: the penalty stops doubling at PRESSURE_DOUBLINGS, so totals stay exact.
        points = 5 << min(self.pressure_counts[seat], PRESSURE_DOUBLINGS)
        self.pressure_counts[seat] += 1
        self.pressure_points[seat] += points
        self.totals[seat] += points
        self.events.append(event("pressure", seat, (), points, self.pressure_counts[seat]))
        if len(self.discard) <= 1:
            raise _HandOver("pressure")
        pile = self.discard[:-1]
        del self.discard[:-1]
        shuffle(self._own_rng(), pile)
        self.stock = pile
        self.events.append(event("reshuffle", seat, (), len(pile)))

    # ----------------------------------------------------------------- hands
    def _draw_first_dealer(self) -> None:
        """Each player draws; lowest (2 low, A high) deals; the tied redraw among themselves."""
        rng = random.Random(f"craits:{self.seed}:first-dealer")
        deck = build_deck(self.decks)  # ruling R20: the full deck, even without kings and queens
        shuffle(rng, deck)
        contenders = list(range(self.players))
        round_no = 1
        while True:
            drawn = {seat: deck.pop() for seat in contenders}
            for seat, card in drawn.items():
                self.events.append(event("dealer_draw", seat, (card,), round_no))
            low = min(DRAW_ORDER[RANK[c]] for c in drawn.values())
            contenders = [s for s, c in drawn.items() if DRAW_ORDER[RANK[c]] == low]
            if len(contenders) == 1:
                break
            round_no += 1
        self.dealer = contenders[0]
        self.events.append(event("first_dealer", self.dealer))

    def _begin_hand(self, index: int, given: _Dealt | None = None) -> None:
        """Deal hand ``index`` (the ``given`` cards, if any) and carry out the upturned card,
        ending hands that end at once (the hands after such a hand are shuffled as usual)."""
        while True:
            try:
                self._deal(index, given)
                given = None
                self._upturn()
                return
            except _HandOver as over:
                if not self._score_hand(over.reason, over.going_out):
                    return
                index += 1

    def _deal(self, index: int, given: _Dealt | None) -> None:
        self.hand_index = index
        size = self.deal_sizes[index]
        self.turns_in_hand = 0
        self.count = self.jack_penalty = self.king_left = 0
        self.out_in_count = False
        self.forfeits = [0] * self.players  # ruling R1: a penalty belongs to its own hand
        self.events.append(event("hand_start", self.dealer, (), size, index + 1))
        # ruling R21: a fresh deck shuffled from the seed and the hand number alone, so deals
        # do not depend on earlier play (duplicate deals rely on it).
        self._rng = random.Random(f"craits:{self.seed}:hand:{index}")
        self._rng_shared = False
        n = self.players
        order = [(self.dealer + self.deal_direction * (i + 1)) % n for i in range(n)]
        dealt, deck = self._shuffle_and_deal(size, order) if given is None else given
        self.events.append(event("shuffle", value=size * n + len(deck)))
        for seat in order:
            self.events.append(event("deal", seat, tuple(dealt[seat]), size, -1, "", True))
        self.hands = dealt
        self.direction = 1  # ruling R17: play starts clockwise, whichever way the deal went
        self.stock = deck
        self.discard = []
        self.announce_pending = (  # ruling R9: every seat owes the deal announcement
            set(range(n)) if size == 1 and self.rules.announce_on_one_card_deal else set()
        )
        self._legal = None

    def _shuffle_and_deal(self, size: int, order: Sequence[int]) -> _Dealt:
        """The hand's deck shuffled by its RNG, dealt one card at a time in ``order``."""
        deck = build_deck(self.decks, self._deck_without)
        shuffle(self._own_rng(), deck)
        dealt: list[list[Card]] = [[] for _ in range(self.players)]
        for _ in range(size):
            for seat in order:
                dealt[seat].append(deck.pop())
        return dealt, deck

    def _check_given(self, index: int, hands: list[list[Card]], deck: list[Card]) -> None:
        """Refuse a given deal that no shuffle could produce (see ``dealt``)."""
        size = self.deal_sizes[index]
        if any(len(hand) != size for hand in hands):
            raise ValueError(f"hand {index + 1} deals {size} cards to each seat")
        cards = sorted([*(c for hand in hands for c in hand), *deck])
        if cards != sorted(build_deck(self.decks, self._deck_without)):
            raise ValueError("the hands, the upturn and the stock must be the game's whole deck")

    def _upturn(self) -> None:
        """The stock's top card is turned up and counts as played by the dealer."""
        card = self.stock.pop()
        dealer = self.dealer
        self.discard.append(card)
        self.active_suit = SUIT[card]
        self.events.append(event("upturn", dealer, _ONE_CARD[card]))
        if RANK[card] in (8, 9):  # ruling R18: the dealer's suit choice is a decision of its own
            self.to_act, self.phase = dealer, _CHOOSE_SUIT
            return
        self._go_to(self._functions[RANK[card]](self, dealer, card))

    def _end_hand(self, over: _HandOver) -> None:
        if self._score_hand(over.reason, over.going_out):
            self._begin_hand(self.hand_index + 1)

    def _score_hand(self, reason: str, going_out: bool) -> bool:
        """Score the hand that just ended; start the next dealer. False when the game is over.

        An empty hand scores the going-out points, every one of them (ruling R22: each player
        who went out is out), or nothing when ``going_out`` is False."""
        rules = self.rules
        out = rules.going_out_points if going_out else 0
        scores = tuple(hand_score(h, rules) if h else out for h in self.hands)
        for seat, (cards, score) in enumerate(zip(self.hands, scores, strict=True)):
            self.totals[seat] += score
            self.events.append(event("hand_score", seat, tuple(cards), score, self.totals[seat]))
        self.events.append(event("hand_end", -1, (), self.hand_index + 1, -1, reason))
        self.hand_scores.append(scores)
        if reason == "cap":
            self.capped_hands += 1
        step = -1 if rules.dealer_follows_direction and self.direction < 0 else 1
        self.dealer = (self.dealer + step) % self.players
        self.deal_direction = step
        self._legal = None
        if self.hand_index + 1 < len(self.deal_sizes):
            return True
        self._finish_game()
        return False

    def _finish_game(self) -> None:
        self.phase = _GAME_OVER
        final = places(self.totals)
        self.events.append(event("game_end", value=len(self.hand_scores)))
        for seat in range(self.players):
            self.events.append(event("final", seat, (), self.totals[seat], final[seat]))
        self.outcome = Outcome(
            totals=tuple(self.totals),
            places=tuple(final),
            hands_played=len(self.hand_scores),
            hand_scores=tuple(self.hand_scores),
            pressure_points=tuple(self.pressure_points),
            capped_hands=self.capped_hands,
        )

    # ----------------------------------------------------------------- legal moves
    def _generate_legal(self) -> list[Move]:
        phase = self.phase
        if phase is _GAME_OVER:
            return []
        seat = self.to_act
        hand = self.hands[seat]
        pending = seat in self.announce_pending
        if phase is _CHOOSE_SUIT:
            top = self.discard[-1]
            suits = range(4) if RANK[top] == 8 else (SUIT[top], SAME_COLOUR[SUIT[top]])
            return [Move.choose_suit(s, pending) for s in suits]
        # ruling R10: only a play from two cards leaves one; going out needs no announcement.
        flag = pending or len(hand) == 2
        moves: list[Move] = []
        c: int  # a card as a plain int: a native integer when compiled, so the tables index fast
        if phase is _COUNT:
            for c in hand:
                if _RANK[c] <= 2:
                    moves.append(_PLAIN_PLAY[c][flag])
        elif phase is _JACKS:  # ruling R11: facing jacks, any J of any suit, and only a J
            for c in hand:
                if _RANK[c] == JACK:
                    moves.append(_PLAIN_PLAY[c][flag])
        else:
            top_rank = _RANK[self.discard[-1]]
            active = self.active_suit
            wild = self._wild_ranks
            options = _PLAY_OPTIONS
            for c in hand:
                r = _RANK[c]
                if r == top_rank or _SUIT[c] == active or r in wild:
                    moves.extend(options[c][flag])
        if self.decks > 1 and len(moves) > 1:
            moves = list(dict.fromkeys(moves))
        if not moves or self._draw_when_able:  # ruling R16: in every phase that offers a draw
            moves.append(DRAW_ANNOUNCED if pending else DRAW)
        return moves

    def _explain_illegal(self, move: Move) -> IllegalMove:
        """Why ``move`` is not legal now, naming the rule (only computed on failure)."""
        if self.phase is _GAME_OVER:
            return IllegalMove(move, "end of the game", "the game is over")
        legal = self.legal_moves()
        seat = self.to_act
        if move.one_card and move.announced(False) in legal:  # ruling R7: an untrue announcement
            return IllegalMove(
                move, "one card", "announced 'one card' but this move does not leave one card"
            )
        if self.phase is _CHOOSE_SUIT:
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
            rule = _DRAW_RULE.get(self.phase, "a turn")
            return IllegalMove(
                move, rule, "you can play, and drawing while able to play is not allowed "
                "(variant draw_when_able)"
            )
        if not 0 <= move.card < len(CARDS) or not -1 <= move.suit <= 3:
            return IllegalMove(move, "a turn", "no such card or suit")
        return self._explain_illegal_play(move, seat)

    def _explain_illegal_play(self, move: Move, seat: int) -> IllegalMove:
        card = CARDS[move.card]
        if card not in self.hands[seat]:
            return IllegalMove(move, "a turn", f"{card} is not in your hand")
        if self.phase is _COUNT:
            return IllegalMove(
                move, "the count", f"during the count (now {self.count}) only an A or a 2"
            )
        if self.phase is _JACKS:
            return IllegalMove(
                move, "jack", f"jacks are pending ({self.jack_penalty} cards): play a J or draw"
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
        top = self.discard[-1]
        return IllegalMove(
            move, "a turn", f"{card} matches neither the rank of {top} nor the active suit "
            f"{SUIT_LETTERS[self.active_suit]}, and is not wild",
        )
