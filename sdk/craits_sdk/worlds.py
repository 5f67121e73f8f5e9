"""Sampled worlds: whole engine games that agree with everything one seat has seen.

A search bot cannot simulate the game it is in (it does not know the others' cards), but it can
simulate games that *could* be the one it is in. ``WorldSampler(view).sample(rng)`` deals the
cards the seat cannot see (the other hands and the stock) at random, so that the result is a
``craits.engine.Game`` whose observation for the seat is exactly the seat's view: same hand, same
hand sizes, same discard pile, same public state, same history. The game plays on with
``legal_moves``/``apply`` to its end, later hands included; their deals come from a fresh random
seed, since the seat cannot know them either.

What the seat knows and the sampler respects, from the current hand's events:

- every card it holds, every card on the discard pile, how many cards each other seat holds and
  how many are in the stock (the rest of the hand's deck is what gets dealt at random);
- a card another seat played was in that seat's hand: it came from one of the cards the seat was
  dealt or drew before it played it;
- a seat that drew because it could not play (unless ``draw_when_able``) held, at that moment, no
  card it could have played: no card matching the top card or the active suit and no wild card in
  normal play or a king's run, no A or 2 in the count, no jack against jacks. Every card it still
  holds from before that draw is not such a card;
- with one deck, a card shuffled back into the stock was not in anyone's hand at that moment, so
  no card a seat held before a reshuffle is one of the reshuffled cards.

Nothing else is public: draws are private, the stock is never shown, and Craits has no passing.
How the others *choose* is not a fact either, so the sampler assumes nothing about it; but
``sample_explained`` also says, for each of their plays this hand, what that seat held then in
the world dealt and which of those cards it could legally have played (a ``Choice``): what a bot
with a model of the others needs to weigh the worlds (``craits_bots.belief`` does).

How: each other seat's hand is a list of *slots*, one per card it received (dealt or drawn),
each with the set of cards it cannot be (a 52-bit mask). Replaying the hand's events grows the
masks (the inferences above) and, where the seat played a card, turns one of its slots that may
hold that card into it (chosen at random). The slots left are then filled from the unseen cards,
most constrained first, each with a random card its mask allows; a dead end starts the sample
again, and after a few dead ends a matching (augmenting paths) finds an assignment whenever one
exists. Every assignment the constraints allow can come out. The weights are not exactly the
posterior's (which would need counting every history), a good trade for a bot's search.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, NamedTuple

from craits.engine import CARDS, Card, Event, EventKind, Game, Phase, Rules, game_deck, shuffle
from craits.engine.cards import JACK, RANK, SUIT
from craits.engine.legal import COUNT_CARDS, JACK_CARDS, playable, wild_cards

if TYPE_CHECKING:
    from .view import View

RANDOM_TRIES: Final = 3
"""Replays with random choices tried before the safe one (see ``WorldSampler._replay``)."""
GREEDY_TRIES: Final = 4
"""Random fills tried before the matching: they usually succeed, and are cheaper."""

_DECISION_DRAWS: Final = frozenset({"unable", "count", "jack"})
"""Draw reasons that are a seat's own move (the others are penalties and card functions)."""


# The event kinds the history is read by, bound once (an enum member's lookup costs ~80 ns on
# CPython 3.11, a module name ~15; a hand's replay compares each event with several).
_HAND_START: Final = EventKind.HAND_START
_PLAY: Final = EventKind.PLAY
_UPTURN: Final = EventKind.UPTURN
_COUNT: Final = EventKind.COUNT
_COUNT_END: Final = EventKind.COUNT_END
_CHOOSE_SUIT: Final = EventKind.CHOOSE_SUIT
_DRAW: Final = EventKind.DRAW
_RESHUFFLE: Final = EventKind.RESHUFFLE
_DEAL: Final = EventKind.DEAL
_PRESSURE: Final = EventKind.PRESSURE
_HAND_SCORE: Final = EventKind.HAND_SCORE
_HAND_END: Final = EventKind.HAND_END
_WENT_OUT: Final = EventKind.WENT_OUT


class WorldError(ValueError):
    """The view does not hold enough of the hand's history to sample a world from it (e.g. a
    bot process restarted mid-game and missed events), or it is not a position to play on."""


def _mask(cards: Sequence[int]) -> int:
    bits = 0
    for card in cards:
        bits |= 1 << card
    return bits




@dataclass(frozen=True, slots=True)
class _Received:
    """``seat`` received ``count`` cards the viewer did not see."""

    seat: int
    count: int


@dataclass(frozen=True, slots=True)
class _HeldNone:
    """``seat`` held none of ``cards`` (a mask) at this moment: it drew because it could not play;
    also used for a reshuffle (``seat`` -1: nobody held the reshuffled cards)."""

    seat: int
    cards: int


@dataclass(frozen=True, slots=True)
class _Played:
    """``seat`` played ``card`` (naming ``suit``, -1 for none), so it held it; ``legal`` is the
    mask of the cards it could have played at that moment (0 where the sampler does not say)."""

    seat: int
    card: int
    suit: int
    legal: int


class Choice(NamedTuple):
    """One play another seat made this hand, as one sampled world explains it.

    In the world, ``seat`` held ``held`` when it played ``card`` (naming ``suit``, -1 for
    none); ``options`` are the cards of ``held`` it could legally have played then, ``card``
    among them. A bot that models how the others choose weighs a world by how likely their
    choices were in it (``craits_bots.belief``); the sampler itself weighs nothing it cannot
    prove."""

    seat: int
    card: Card
    suit: int
    held: tuple[Card, ...]
    options: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class _Slots:
    """Where one replay of the hand leaves the other seats' cards: each slot still held (its
    owner, the cards it cannot be, the step it was received at) and each play (its step, and the
    step at which the slot it came from was received)."""

    owners: list[int]
    masks: list[int]
    received: list[int]
    plays: list[tuple[int, int]]


_Step = _Received | _HeldNone | _Played


class WorldSampler:
    """Samples worlds for one view; make one per decision and call ``sample`` as often as needed
    (the hand's history is read once, here)."""

    def __init__(self, view: View) -> None:
        if view.phase is Phase.GAME_OVER:
            raise WorldError("the game is over: there is no position to play on")
        if view.game.missing_events:
            raise WorldError(
                f"{view.game.missing_events} events of this game never reached the bot: the hand's "
                "history is incomplete, so no world can be sampled consistently"
            )
        self.view = view
        self.rules: Rules = view.rules
        history = view.game.history[: view.history_len]
        self.history: tuple[Event, ...] = tuple(history)
        start = _hand_start(self.history)
        self._steps, discard, mine, decided = _read_hand(
            self.history[start:], view.seat, view.rules, single_deck=view.players <= 5,
        )
        self.turns = sum(decided.values())
        self.hand: tuple[Card, ...] = tuple(mine) if sorted(mine) == list(view.hand) else view.hand
        if len(discard) != view.discard_size or (discard and discard[-1] != view.top_card):
            raise WorldError("the hand's history does not rebuild the discard pile shown")
        self.discard: tuple[Card, ...] = tuple(discard)
        unseen = Counter(game_deck(view.rules, view.players))
        unseen.subtract(view.hand)
        unseen.subtract(discard)
        if min(unseen.values(), default=0) < 0:
            raise WorldError("the hand and discard pile hold cards the deck does not")
        self.unseen: tuple[Card, ...] = tuple(sorted(unseen.elements()))
        hidden = sum(n for s, n in enumerate(view.hand_sizes) if s != view.seat)
        if len(self.unseen) != hidden + view.stock_size:
            raise WorldError("the cards unseen do not add up to the hands and stock shown")
        self.pending: frozenset[int] = frozenset(
            s for s in range(view.players) if not decided[s]
        ) if view.deal_size == 1 and view.rules.announce_on_one_card_deal else frozenset()
        self._pressure_points, self._hand_scores = _scores_so_far(self.history, view.players)

    def sample(self, rng: random.Random, *, history: bool = True) -> Game:
        """One world: a ``Game`` at this view's position with the unseen cards dealt at random
        and a random seed for everything after (reshuffles, later deals). ``history=False``
        leaves the sampled game's event log empty (faster, for search that never reads it)."""
        return self._world(self._deal(rng)[0], rng, history)

    def sample_explained(
        self, rng: random.Random, *, history: bool = True,
    ) -> tuple[Game, tuple[Choice, ...]]:
        """One world, dealt as ``sample`` deals it, and how it explains the other seats' plays
        this hand: a ``Choice`` for each play whose legal options the history fixes (in normal
        play, a king's run, the count and against jacks), in the order they were made."""
        hands, slots, cells = self._deal(rng)
        return self._world(hands, rng, history), self._choices(slots, cells)

    def _world(self, hands: list[list[Card]], rng: random.Random, history: bool) -> Game:
        view = self.view
        stock = list(hands.pop())
        shuffle(rng, stock)
        return Game.at_position(
            self.rules, hands, self.discard, stock,
            to_act=view.to_act, dealer=view.dealer, direction=view.direction,
            phase=view.phase, active_suit=view.active_suit, hand_index=view.hand_number - 1,
            count=view.count, jack_penalty=view.jack_penalty, king_left=view.king_left,
            forfeits=view.forfeits, announce_pending=self.pending, totals=view.totals,
            pressure_counts=view.pressure_counts, seed=rng.getrandbits(63),
            history=self.history if history else (),
            out_in_count=view.phase is Phase.COUNT and 0 in view.hand_sizes,
            turns_in_hand=self.turns, pressure_points=self._pressure_points,
            hand_scores=self._hand_scores,
        )

    def _deal(self, rng: random.Random) -> tuple[list[list[Card]], _Slots, list[int]]:
        """Every seat's hand (the viewer's as seen), then the stock's cards, last; with the
        replay's slots and the card each slot left in a hand got."""
        view = self.view
        for attempt in range(RANDOM_TRIES + 2):
            slots = self._replay(rng, safe=attempt >= RANDOM_TRIES)
            if slots is None:
                continue
            cells = _fill(list(self.unseen), slots.masks, rng, GREEDY_TRIES)
            if cells is None:
                continue
            hands: list[list[Card]] = [[] for _ in range(view.players)]
            hands[view.seat] = list(self.hand)
            for owner, card in zip(slots.owners, cells, strict=True):
                hands[owner].append(CARDS[card])
            used = Counter(cells)
            stock: Counter[int] = Counter(self.unseen)
            stock.subtract(used)
            hands.append([CARDS[c] for c in stock.elements()])
            return hands, slots, cells
        raise WorldError("no deal of the unseen cards agrees with this view's history")

    def _replay(self, rng: random.Random, safe: bool) -> _Slots | None:
        """The slots left in the other hands after the hand's events, or None when a random
        choice led to a seat playing a card none of its slots may hold.

        A played card comes from a random slot that may hold it, or, when ``safe``, from the
        most constrained one: a seat's masks are nested (an older slot has been through every
        inference a newer one has), so that choice never leaves a later play, or the final fill,
        without a slot that an other choice would have kept."""
        players = self.view.players
        slots: list[list[int]] = [[] for _ in range(players)]
        received: list[list[int]] = [[] for _ in range(players)]
        plays: list[tuple[int, int]] = []
        for index, step in enumerate(self._steps):
            if isinstance(step, _Received):
                slots[step.seat].extend([0] * step.count)
                received[step.seat].extend([index] * step.count)
            elif isinstance(step, _HeldNone):
                for seat in range(players) if step.seat < 0 else (step.seat,):
                    held = slots[seat]
                    for i in range(len(held)):
                        held[i] |= step.cards
            else:
                held = slots[step.seat]
                fits = [i for i, m in enumerate(held) if not m >> step.card & 1]
                if not fits:
                    return None
                pick = max(fits, key=lambda i: held[i].bit_count()) if safe else rng.choice(fits)
                held.pop(pick)
                plays.append((index, received[step.seat].pop(pick)))
        left = _Slots([], [], [], plays)
        for seat, held in enumerate(slots):
            if len(held) != self.view.hand_sizes[seat] and seat != self.view.seat:
                raise WorldError(f"the history gives seat {seat} {len(held)} cards, the view "
                                 f"{self.view.hand_sizes[seat]}")
            if seat != self.view.seat:
                left.owners.extend([seat] * len(held))
                left.masks.extend(held)
                left.received.extend(received[seat])
        return left

    def _choices(self, slots: _Slots, cells: list[int]) -> tuple[Choice, ...]:
        """The others' plays with known options, as the deal of ``cells`` explains them: a seat
        held, when it played, every card whose slot it had received by then and not yet played
        (a card played later from such a slot, or a card still held)."""
        steps = self._steps
        spans: list[list[tuple[int, int, int]]] = [[] for _ in range(self.view.players)]
        """Per seat, each card it held this hand: (step received, step played or after the
        last step, card)."""
        for index, got in slots.plays:
            play = steps[index]
            assert isinstance(play, _Played)
            spans[play.seat].append((got, index, play.card))
        kept = len(steps)
        for owner, card, got in zip(slots.owners, cells, slots.received, strict=True):
            spans[owner].append((got, kept, card))
        choices: list[Choice] = []
        for index, _ in slots.plays:
            play = steps[index]
            assert isinstance(play, _Played)
            if not play.legal:
                continue
            held = tuple([CARDS[card] for got, gone, card in spans[play.seat]
                          if got < index <= gone])
            choices.append(Choice(play.seat, CARDS[play.card], play.suit, held,
                                  tuple([c for c in held if play.legal >> c & 1])))
        return tuple(choices)


def _hand_start(history: Sequence[Event]) -> int:
    for i in range(len(history) - 1, -1, -1):
        if history[i].kind == _HAND_START:
            return i
    raise WorldError("no hand has started in this view's history")


def _read_hand(
    events: Sequence[Event], me: int, rules: Rules, *, single_deck: bool,
) -> tuple[list[_Step], list[Card], list[Card], Counter[int]]:
    """The hand's events as sampler steps, plus the discard pile they leave, the viewer's hand in
    the order the engine holds it (its legal moves follow that order) and each seat's number of
    decisions (towards the turn cap and the deal announcement)."""
    steps: list[_Step] = []
    discard: list[Card] = []
    mine: list[Card] = []
    decided: Counter[int] = Counter()
    wild = wild_cards(rules)
    suit = 0
    previous = ""
    counting = False
    for event in events:
        kind, seat = event.kind, event.seat
        if kind == _PLAY and seat != me:
            steps.append(_Played(seat, event.cards[0], event.aux,
                                 _legal_then(counting, discard[-1], suit, wild, rules)))
        if kind in (_UPTURN, _PLAY):
            card = event.cards[0]
            discard.append(card)
            suit = event.aux if kind == _PLAY and event.aux >= 0 else SUIT[card]
        if kind == _PLAY:
            decided[seat] += 1
            if seat == me:
                mine.remove(event.cards[0])
        elif kind == _COUNT:
            counting = True
        elif kind == _COUNT_END:
            counting = False
        elif kind == _CHOOSE_SUIT:
            suit = event.aux
            decided[seat] += 1
        elif kind == _DRAW:
            move = event.detail in _DECISION_DRAWS and previous != _WENT_OUT
            decided[seat] += move
            if seat != me and move and not rules.draw_when_able:
                steps.append(_HeldNone(seat, _could_play(event.detail, discard[-1], suit, wild)))
        elif kind == _RESHUFFLE:
            if single_deck:
                steps.append(_HeldNone(-1, _mask(discard[:-1])))
            del discard[:-1]
        if kind in (_DEAL, _DRAW):
            if seat == me:
                mine.extend(event.cards)
            else:
                steps.append(_Received(seat, event.value))
        previous = kind
    return steps, discard, mine, decided


def _legal_then(counting: bool, top: Card, suit: int, wild: int, rules: Rules) -> int:
    """The cards a seat could play at a moment of the hand (a mask), or 0 where the events do
    not say: on a jack with face cards on, whether the jack's penalty is pending depends on the
    king's run it may be part of."""
    if counting:
        return COUNT_CARDS
    if rules.face_cards and RANK[top] == JACK:
        return 0
    return _could_play("unable", top, suit, wild)


def _could_play(why: str, top: Card, suit: int, wild: int) -> int:
    """The cards a seat that drew for ``why`` could have played instead (as a mask): the
    engine's rule (``craits.engine.legal``) for the phase the draw was made in."""
    if why == "count":
        return COUNT_CARDS
    if why == "jack":
        return JACK_CARDS
    return playable(top, suit, wild)


def _fill(
    pool: list[Card], masks: list[int], rng: random.Random, tries: int,
) -> list[int] | None:
    """A card from ``pool`` for each slot, none in its slot's mask: random greedy fills, the slot
    with the fewest cards it may hold first, then a matching; None only when no assignment
    exists."""
    if not any(masks):
        shuffle(rng, pool)
        return list(pool[: len(masks)])
    present = _mask(pool)
    order = sorted(range(len(masks)),
                   key=lambda i: ((present & ~masks[i]).bit_count(), rng.random()))
    for _ in range(tries):
        shuffle(rng, pool)
        left = list(pool)
        cells = [0] * len(masks)
        for i in order:
            mask = masks[i]
            pick = next((j for j, c in enumerate(left) if not mask >> c & 1), -1)
            if pick < 0:
                break
            cells[i] = left.pop(pick)
        else:
            return cells
    return _match(pool, masks, rng)


def _match(pool: list[Card], masks: list[int], rng: random.Random) -> list[int] | None:
    """A slot-to-card matching by augmenting paths (Kuhn), in a random order; None if none."""
    shuffle(rng, pool)
    holder = [-1] * len(pool)
    """Which slot holds each pool position."""

    def place(slot: int, seen: set[int]) -> bool:
        for j, card in enumerate(pool):
            if masks[slot] >> card & 1 or j in seen:
                continue
            seen.add(j)
            if holder[j] < 0 or place(holder[j], seen):
                holder[j] = slot
                return True
        return False

    for slot in rng.sample(range(len(masks)), len(masks)):
        if not place(slot, set()):
            return None
    cells = [0] * len(masks)
    for j, slot in enumerate(holder):
        if slot >= 0:
            cells[slot] = pool[j]
    return cells


def _scores_so_far(
    history: Sequence[Event], players: int,
) -> tuple[list[int], list[tuple[int, ...]]]:
    """Each seat's shuffle-pressure points and each finished hand's scores, from the log."""
    pressure = [0] * players
    hands: list[tuple[int, ...]] = []
    current = [0] * players
    for event in history:
        if event.kind == _PRESSURE:
            pressure[event.seat] += event.value
        elif event.kind == _HAND_SCORE:
            current[event.seat] = event.value
        elif event.kind == _HAND_END:
            hands.append(tuple(current))
            current = [0] * players
    return pressure, hands
