"""``LowCardBot``: always sheds its cheapest playable card, the opposite of ``greedy``.

A deliberately naive strategy that is easy to explain and deterministic: it holds on to its
expensive cards (eights, fives, sixes, twos) as long as it can, which is exactly what the scoring
punishes when another player goes out. It gives tournaments and the demo a third, clearly
different style between ``greedy`` and ``random``.
"""

from __future__ import annotations

from craits.engine import CARDS, Move, MoveKind
from craits.engine.scoring import CARD_POINTS
from craits_sdk import Bot, View, run


def _cost(move: Move) -> tuple[int, int, int]:
    """Cheapest card first; among equal cards, keep suit choices stable (lowest suit index)."""
    if move.kind is not MoveKind.PLAY:
        return (1_000, 0, move.suit)  # draw or a dealer's suit choice: only when nothing else
    return (CARD_POINTS[CARDS[move.card].rank], move.card, move.suit)


class LowCardBot(Bot):
    """Plays the legal card with the fewest points (suit choices: its most-held suit)."""

    name = "lowcard"

    def decide(self, view: View) -> Move:
        """The cheapest play, naming the suit it holds most of when it must name one."""
        best = min(view.legal_moves, key=_cost)
        if best.suit < 0 or best.kind is MoveKind.DRAW:
            return best
        held = [sum(1 for c in view.hand if c.suit == s) for s in range(4)]
        options = [m for m in view.legal_moves if m.kind == best.kind and m.card == best.card]
        return max(options, key=lambda m: held[m.suit] if m.suit >= 0 else -1)


if __name__ == "__main__":
    run(LowCardBot)
