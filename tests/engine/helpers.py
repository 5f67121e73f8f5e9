"""Helpers for engine tests: build exact positions and read the event log.

``position(...)`` makes a ``Game`` in an exact position from cards written as text (through
``Game.at_position``), so a test can start from any position and drive it through
``Game.apply`` and ``legal_moves()``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from craits.engine import Card, Event, Game, Move, Phase, Rules, parse_suit, preset
from craits.engine.cards import CARDS, RANK, build_deck
from craits.engine.moves import MoveKind

STANDARD = preset("standard")


def cards(text: str) -> list[Card]:
    """``cards("AH 10S 8C")`` -> the cards, in that order ("" -> [])."""
    return [Card.parse(t) for t in text.split()]


def card(text: str) -> Card:
    """One card from its text form."""
    return Card.parse(text)


def move(text: str) -> Move:
    """One move from its text form (``"play 8C suit=H one-card"``, ``"draw"``, ``"suit H"``)."""
    return Move.parse(text)


def rules(**changes: Any) -> Rules:
    """The standard preset with some fields changed."""
    return STANDARD.replace(**changes)


def position(
    hands: Sequence[str],
    *,
    top: str = "3D",
    under: str = "",
    stock: str = "",
    active_suit: str | None = None,
    rules: Rules = STANDARD,
    to_act: int = 0,
    dealer: int | None = None,
    direction: int = 1,
    phase: Phase = Phase.PLAY,
    hand_index: int = 0,
    count: int = 0,
    jack_penalty: int = 0,
    king_left: int = 0,
    forfeits: Sequence[int] | None = None,
    announce_pending: Iterable[int] = (),
    totals: Sequence[int] | None = None,
    pressure_counts: Sequence[int] | None = None,
    seed: int = 0,
) -> Game:
    """A game in an exact position, cards written as text (the rest: ``Game.at_position``).

    ``hands[i]`` is seat i's hand. ``top`` is the discard pile's top card and ``under`` the cards
    beneath it (bottom first). ``stock`` lists the cards in the order they will be drawn. A
    finished hand goes on to the next deal as usual (``hand_index`` + 1), so set ``hand_index``
    to the last hand to end the game there.
    """
    return Game.at_position(
        rules, [cards(h) for h in hands], [*cards(under), card(top)], cards(stock),
        to_act=to_act, dealer=dealer, direction=direction, phase=phase,
        active_suit=parse_suit(active_suit) if active_suit else None, hand_index=hand_index,
        count=count, jack_penalty=jack_penalty, king_left=king_left, forfeits=forfeits,
        announce_pending=announce_pending, totals=totals, pressure_counts=pressure_counts,
        seed=seed,
    )


def last_hand(rules: Rules = STANDARD) -> int:
    """Index of the last hand of a game under ``rules`` (ending it ends the game)."""
    return len(rules.hands_in_game()) - 1


def play(game: Game, *texts: str) -> list[Event]:
    """Apply moves given as text in order; return the events they caused."""
    start = len(game.events)
    for t in texts:
        game.apply(Move.parse(t))
    return game.events[start:]


def of_kind(events: Iterable[Event], *kinds: str) -> list[Event]:
    """The events of the given kinds, in order."""
    return [e for e in events if e.kind in kinds]


def draws(events: Iterable[Event]) -> list[tuple[int, int, str]]:
    """``(seat, how many, why)`` for every draw event."""
    return [(e.seat, e.value, e.detail) for e in events if e.kind == "draw"]


def legal_text(game: Game) -> list[str]:
    """The legal moves as text, sorted (for comparisons that ignore order)."""
    return sorted(str(m) for m in game.legal_moves())


def hand_text(game: Game, seat: int) -> str:
    """A seat's hand as sorted text."""
    return " ".join(sorted(str(c) for c in game.hands[seat]))


def snapshot(game: Game) -> tuple[Any, ...]:
    """Every piece of game state a move can change (for "illegal moves change nothing")."""
    return (
        [list(h) for h in game.hands],
        list(game.stock),
        list(game.discard),
        list(game.events),
        list(game.totals),
        list(game.pressure_counts),
        list(game.pressure_points),
        list(game.forfeits),
        list(game.hand_scores),
        sorted(game.announce_pending),
        game.hand_index, game.dealer, game.deal_direction, game.direction, game.active_suit,
        game.phase, game.to_act, game.count, game.jack_penalty, game.king_left,
        game.turns_in_hand, game.out_in_count, game.capped_hands, game.outcome,
        game._rng.getstate(),
    )


def deck_size(rules: Rules, players: int) -> int:
    """How many cards a game of ``players`` uses under ``rules``."""
    decks = 1 if players <= 5 else 2
    without = {12, 13} if rules.remove_kings_queens and players <= 3 else set()
    return len(build_deck(decks, frozenset(without)))


def all_cards(game: Game) -> list[int]:
    """Every card in hands, stock and discard, sorted."""
    return sorted([c for h in game.hands for c in h] + list(game.stock) + list(game.discard))


def find_upturn(
    want: str | int, rules: Rules = STANDARD, players: int = 4, limit: int = 5000
) -> Game:
    """A new game whose first upturned card is ``want`` (a card text, or a rank number)."""
    for seed in range(limit):
        game = Game.new(rules, players, seed)
        up = next(e for e in game.events if e.kind == "upturn").cards[0]
        if (isinstance(want, int) and RANK[up] == want) or str(CARDS[up]) == want:
            return game
    raise AssertionError(f"no seed below {limit} upturns {want!r}")


def plays_of(game: Game) -> list[Move]:
    """Non-draw legal moves of the seat to act."""
    return [m for m in game.legal_moves() if m.kind is MoveKind.PLAY]
