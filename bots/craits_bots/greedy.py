"""``GreedyBot``: a one-ply heuristic that is simple, deterministic and clearly better than random.

Each legal move gets a score and the best one is played (ties: the referee's order). The score
is what the move saves if the hand ended now (the drop in ``hand_score``, which already knows that
threes cancel other cards and that a hand of only threes scores negative), plus what the card's
function does to the others, plus how well the hand can follow the suit the move leaves, minus
what an eight is worth kept: a wild card is the one sure way to play later, so it goes last
unless the hand is nearly empty.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from craits.engine import Card, Move, MoveKind, Phase, hand_score
from craits.engine.scoring import CARD_POINTS
from craits_sdk import Bot, View, run

GO_OUT: Final = 1000
"""Going out ends the hand at the going-out score: nothing else comes close."""
NEVER_DRAW: Final = -1000
"""Drawing while able to play (variant ``draw_when_able``) only adds cards."""
EIGHT_KEPT: Final = 60
"""What holding an eight is worth while the hand still has two or more other cards."""
PER_FOLLOWER: Final = 6
"""Per card left that can follow the suit this move leaves active."""
PER_SAME_RANK: Final = 2
"""Per card left that matches the rank this move leaves on top."""
THREAT: Final = 25
"""Stopping a next player who holds one card (skip, make them draw, start the count)."""


class GreedyBot(Bot):
    """Plays the legal move with the best one-ply score (see the module docstring)."""

    name = "greedy"

    def decide(self, view: View) -> Move:
        """The best-scoring legal move."""
        scorer = _SCORERS.get(view.phase, _score_play)
        return max(view.legal_moves, key=lambda move: scorer(view, move))


# ----------------------------------------------------------------- scores per phase
def _score_play(view: View, move: Move) -> float:
    """A normal turn or a king's sequence."""
    if move.kind is not MoveKind.PLAY:
        return NEVER_DRAW
    card = Card(move.card)
    rest = _without(view.hand, card)
    if not rest:
        return GO_OUT
    score = points_saved(view, rest) + _function_bonus(view, card, rest)
    score += _follow_bonus(rest, move.suit if move.suit >= 0 else card.suit, card.rank)
    if card.rank == 8 and len(rest) >= 2:
        score -= EIGHT_KEPT
    return score


def _score_count(view: View, move: Move) -> float:
    """The count: any A or 2 keeps it going; shed the more costly one, and go out if possible."""
    if move.kind is not MoveKind.PLAY:
        return NEVER_DRAW
    card = Card(move.card)
    rest = _without(view.hand, card)
    return GO_OUT if not rest else points_saved(view, rest)


def _score_suit(view: View, move: Move) -> float:
    """The dealer's suit for an upturned 8 or 9: the suit held most (then the costliest)."""
    return _follow_bonus(view.hand, move.suit, -1)


_SCORERS: Final[dict[Phase, Callable[[View, Move], float]]] = {
    Phase.PLAY: _score_play,
    Phase.KING: _score_play,
    Phase.JACKS: _score_count,
    Phase.COUNT: _score_count,
    Phase.CHOOSE_SUIT: _score_suit,
}


# ----------------------------------------------------------------- parts of a score
def points_saved(view: View, rest: Sequence[Card]) -> float:
    """Points the hand would cost less if the hand ended now with only ``rest`` left."""
    return hand_score(view.hand, view.rules) - hand_score(rest, view.rules)


def _function_bonus(view: View, card: Card, rest: Sequence[Card]) -> float:
    """What the card's function does for us: others drawing, a skip, a replay, the count."""
    rank = card.rank
    bonus = _FUNCTION_BONUS.get(rank, 0.0)
    if rank == 5:
        bonus *= view.players - 1
    elif rank == 6:
        bonus = bonus if any(_follows(c, card) for c in rest) else -bonus
    elif rank == 2:
        bonus = bonus if any(c.rank <= 2 for c in rest) else 0.0
    if rank in _STOPPERS and view.hand_sizes[_next_seat(view)] == 1:
        bonus += THREAT
    return bonus


_FUNCTION_BONUS: Final = {2: 8.0, 4: 5.0, 5: 6.0, 6: 10.0, 7: 6.0}
"""Rank -> bonus for its function (a five's is per opponent)."""
_STOPPERS: Final = frozenset({2, 4, 5, 7})
"""Ranks that keep the next player from simply going out."""


def _follow_bonus(rest: Sequence[Card], suit: int, rank: int) -> float:
    """How well the cards left can follow the suit and rank this move leaves on the table."""
    same_suit = [c for c in rest if c.suit == suit and c.rank != 8]
    same_rank = sum(1 for c in rest if c.rank == rank and c.suit != suit)
    points = sum(CARD_POINTS[c.rank] for c in same_suit) / 100
    return PER_FOLLOWER * len(same_suit) + PER_SAME_RANK * same_rank + points


# ----------------------------------------------------------------- small helpers
def _follows(card: Card, top: Card) -> bool:
    return card.suit == top.suit or card.rank == top.rank or card.rank == 8


def _next_seat(view: View) -> int:
    return (view.seat + view.direction) % view.players


def _without(hand: Sequence[Card], card: Card) -> list[Card]:
    rest = list(hand)
    rest.remove(card)
    return rest


if __name__ == "__main__":
    run(GreedyBot)
