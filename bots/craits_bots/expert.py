"""``ExpertBot``: a careful one-ply heuristic that counts cards.

It scores every legal move like ``greedy`` (points shed, what the card's function does, how well
the hand follows what the move leaves) but knows more:

- the cards it has not seen (the deck less its hand and the discard pile, rebuilt from the
  hand's history by the SDK's world sampler), so it names the suit after an 8 or a 9 where it
  holds most and the others are least likely to follow, and starts the count when the next
  player is unlikely to hold an A or a 2;
- who is closest to going out: fours, sevens, fives and twos are aimed at the seat that would
  otherwise go out, and a ten turns play away from it;
- that a wild card is the surest way to go out: it keeps its eights longer than ``greedy``
  (measured: dumping them when an opponent is close to going out lost points);
- the scoring preset, through ``hand_score``: threes that cancel costly cards are kept and only
  shed when they do not;
- the one-card announcement, which the legal moves carry already.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import comb
from typing import Final

from craits.engine import Card, Move, MoveKind, Phase, game_deck
from craits.engine.cards import RANK, SUIT
from craits.engine.scoring import CARD_POINTS
from craits_sdk import Bot, View, WorldError, run

from .greedy import points_saved

GO_OUT: Final = 10_000.0
NEVER_DRAW: Final = -1_000.0
EIGHT_KEPT: Final = 100.0
"""What a wild card is worth in hand while two or more other cards remain (tuned against
``greedy`` in two-player short games: 45 lost, 60 drew, 100 won)."""
PER_FOLLOWER: Final = 7.0
"""Per card left that can follow the suit a move leaves active."""
DENIAL: Final = 10.0
"""For leaving a suit of which none is unseen (scaled by the share of unseen cards)."""
COUNT_WON: Final = 30.0
"""A count the next player cannot answer: they draw two cards or more."""
COUNT_LOST: Final = 35.0
"""A count answered when we hold no A or 2 to go on: we draw three cards or more."""
THREAT: Final = (0.0, 40.0, 18.0, 6.0)
"""How much stopping a seat matters, by its hand size (1, 2, 3 cards; more: nothing)."""


class _Table:
    """What the expert reads off one view, computed once per decision."""

    def __init__(self, view: View) -> None:
        self.view = view
        self.unseen = _unseen(view)
        self.unseen_by_suit = [0] * 4
        for card in self.unseen:
            if RANK[card] != 8:
                self.unseen_by_suit[SUIT[card]] += 1

    def seat_after(self, seat: int, direction: int | None = None) -> int:
        view = self.view
        return (seat + (direction or view.direction)) % view.players

    def threat(self, seat: int) -> float:
        size = self.view.hand_sizes[seat]
        return THREAT[size] if 0 < size < len(THREAT) else 0.0

    def lacks(self, seat: int, ranks: tuple[int, ...]) -> float:
        """The chance that ``seat`` holds none of ``ranks``, if its cards were any unseen ones."""
        size = self.view.hand_sizes[seat]
        total = len(self.unseen)
        bad = sum(1 for c in self.unseen if RANK[c] in ranks)
        if size > total or total == 0:
            return 0.0
        return comb(total - bad, size) / comb(total, size)


def _unseen(view: View) -> list[Card]:
    try:
        return list(view.world_sampler().unseen)
    except WorldError:
        rest = game_deck(view.rules, view.players)
        for card in (*view.hand, view.top_card):
            if card in rest:
                rest.remove(card)
        return rest


class ExpertBot(Bot):
    """Plays the legal move with the best score (see the module docstring)."""

    name = "expert"

    def decide(self, view: View) -> Move:
        """The best-scoring legal move (ties: the referee's order)."""
        if len(view.legal_moves) == 1:
            return view.legal_moves[0]
        table = _Table(view)
        scorer = _SCORERS.get(view.phase, _score_play)
        return max(view.legal_moves, key=lambda move: scorer(table, move))


def _score_play(table: _Table, move: Move) -> float:
    if move.kind is not MoveKind.PLAY:
        return NEVER_DRAW
    view = table.view
    card = Card(move.card)
    rest = _without(view.hand, card)
    if not rest:
        return GO_OUT
    suit = move.suit if move.suit >= 0 else card.suit
    score = points_saved(view, rest) + _function(table, card, rest)
    score += _follow(table, rest, suit, card.rank)
    if card.rank == 8 and len(rest) >= 2:
        score -= EIGHT_KEPT
    return score


def _score_count(table: _Table, move: Move) -> float:
    """The count or jacks: keep it going with the card that sheds most; a two adds more for
    the next player."""
    if move.kind is not MoveKind.PLAY:
        return NEVER_DRAW
    view = table.view
    rest = _without(view.hand, Card(move.card))
    if not rest:
        return GO_OUT
    bonus = 5.0 if RANK[move.card] == 2 else 0.0
    return points_saved(view, rest) + bonus


def _score_suit(table: _Table, move: Move) -> float:
    """The dealer's suit for an upturned 8 or 9."""
    return _follow(table, table.view.hand, move.suit, -1)


_SCORERS: Final[dict[Phase, Callable[[_Table, Move], float]]] = {
    Phase.PLAY: _score_play,
    Phase.KING: _score_play,
    Phase.COUNT: _score_count,
    Phase.JACKS: _score_count,
    Phase.CHOOSE_SUIT: _score_suit,
}


def _function(table: _Table, card: Card, rest: Sequence[Card]) -> float:
    """What the card's function does for us, aimed at whoever is closest to going out."""
    view = table.view
    nxt = table.seat_after(view.seat)
    rank = card.rank
    if rank == 4:
        return 4.0 + table.threat(nxt)
    if rank == 7:
        return 5.0 + table.threat(nxt)
    if rank == 5:
        return sum(4.0 + table.threat(s) for s in range(view.players) if s != view.seat)
    if rank == 2:
        lacks = table.lacks(nxt, (1, 2))
        backed = any(c.rank <= 2 for c in rest)
        return COUNT_WON * lacks - (0.0 if backed else COUNT_LOST * (1 - lacks)) + table.threat(nxt)
    if rank == 6:
        follows = any(c.suit == card.suit or c.rank in (6, 8) for c in rest)
        return 12.0 if follows else -12.0
    if rank == 10 and view.players > 2:
        before = table.seat_after(view.seat, -view.direction)
        return table.threat(nxt) - table.threat(before)
    return 0.0


def _follow(table: _Table, rest: Sequence[Card], suit: int, rank: int) -> float:
    """How well the cards left follow the suit left active, and how badly the others will."""
    mine = [c for c in rest if c.suit == suit and c.rank != 8]
    same_rank = sum(1 for c in rest if c.rank == rank and c.suit != suit)
    points = sum(CARD_POINTS[c.rank] for c in mine) / 100
    unseen = max(1, len(table.unseen))
    denial = DENIAL * (1 - 4 * table.unseen_by_suit[suit] / unseen)
    return PER_FOLLOWER * len(mine) + 2.0 * same_rank + points + denial


def _without(hand: Sequence[Card], card: Card) -> list[Card]:
    rest = list(hand)
    rest.remove(card)
    return rest


if __name__ == "__main__":
    run(ExpertBot)
