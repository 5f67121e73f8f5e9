"""How a search finishes a sampled world: a quick policy, a depth cut, and each seat's reward.

A search iteration ends in a position somewhere inside the hand. Playing every world to the end
of the hand is what the first ``ismcts`` did; it measured weak (``docs/strategies.md``): an
8-card hand at 3 players takes about 65 moves, most of them draws, so a 100 ms budget bought a
couple of hundred playouts, each ending in a score that one lucky draw swings by tens of points.
Here a playout stops after ``DEPTH`` moves and the position is *estimated* instead: each seat
expects to go out with a probability that falls with the cards it holds, and otherwise to be
scored on them. That is cheaper per iteration and less noisy; the depth was chosen by
measurement (``benchmarks/strength_bench.py``, ``docs/strategies.md``).

The policy that plays the moves is a cheap version of ``greedy`` on the engine's own state (no
``View``): go out if possible, shed the costliest card, prefer a move that leaves a suit the seat
can follow, keep eights while the hand is long, draw only when nothing is playable. A share
``NOISE`` of its plays is random, so that playouts from one world differ.

Rewards are zero-sum and of the order of one: a seat's reward is how much less it took in the hand
than the average of the others, in units of ``SCALE`` points.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Final

from craits.engine import Game, Move, hand_score
from craits.engine.cards import RANK, SUIT
from craits.engine.scoring import CARD_POINTS

SCALE: Final = 60.0
"""Points per unit of reward: about the spread of one hand's scores between seats."""
DEPTH: Final = 16
"""Moves a playout makes before the position is estimated (measured at a fixed iteration count:
8 and 16 played as well as playouts to the end of the hand, within the noise, at a half and two
thirds of the cost; 16 won by more points)."""
NOISE: Final = 0.15
"""Share of random plays in a playout, so that playouts from one world differ."""
OUT_SHARPNESS: Final = 0.5
"""How fast the chance of going out first falls with the cards held: a seat's weight is
``exp(-OUT_SHARPNESS * cards)``, so a seat with two cards fewer is e (2.7) times as likely."""
FOLLOWER: Final = 6.0
"""Per card kept that can follow the suit a play leaves (``greedy``'s figure)."""
EIGHT_KEPT: Final = 60.0
"""An eight's worth in hand while two or more other cards remain (``greedy``'s figure)."""
_POINTS: Final = tuple(float(p) for p in CARD_POINTS)


def policy_move(game: Game, legal: Sequence[Move]) -> Move:
    """The quick policy's move for the seat to act (see the module docstring)."""
    hand = game.hands[game.to_act]
    size = len(hand)
    by_suit = [0, 0, 0, 0]  # cards of each suit that can follow it (eights are wild, not followers)
    for c in hand:
        if RANK[c] != 8:
            by_suit[SUIT[c]] += 1
    best, value = legal[0], -math.inf
    for move in legal:
        card = move.card
        if card < 0:  # a draw (-inf: only when nothing else is legal) or a dealer's suit
            score = -math.inf if move.suit < 0 else FOLLOWER * by_suit[move.suit]
        elif size == 1:
            return move
        else:
            rank, own = RANK[card], SUIT[card]
            suit = move.suit if move.suit >= 0 else own
            followers = by_suit[suit] - (1 if own == suit and rank != 8 else 0)
            score = _POINTS[rank] + FOLLOWER * followers
            if rank == 8 and size > 2:
                score -= EIGHT_KEPT
        if score > value:
            best, value = move, score
    return best


def play_on(game: Game, rng: random.Random, depth: int = DEPTH) -> bool:
    """Play ``game`` on by the quick policy for up to ``depth`` moves or to the end of the hand;
    True if the hand ended."""
    hand = game.hand_index
    for _ in range(depth):
        if game.hand_index != hand or game.is_over:
            return True
        legal = game.legal_moves()
        if len(legal) > 1 and rng.random() < NOISE:
            plays = [m for m in legal if m.card >= 0]
            game.apply(plays[int(rng.random() * len(plays))] if plays else legal[0])
        else:
            game.apply(legal[0] if len(legal) == 1 else policy_move(game, legal))
    return game.hand_index != hand or game.is_over


def rewards(before: Sequence[int], game: Game, ended: bool) -> list[float]:
    """Each seat's reward since the totals were ``before``: exact when the hand ``ended``,
    estimated from the cards held otherwise (see the module docstring)."""
    taken = [float(after - start) for start, after in zip(before, game.totals, strict=True)]
    if not ended:
        weights = [math.exp(-OUT_SHARPNESS * len(h)) for h in game.hands]
        total_weight = sum(weights)
        out = game.rules.going_out_points
        for seat, cards in enumerate(game.hands):
            first = weights[seat] / total_weight
            taken[seat] += first * out + (1 - first) * hand_score(cards, game.rules)
    total = sum(taken)
    others = len(taken) - 1
    return [((total - t) / others - t) / SCALE for t in taken]
