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

Rewards are zero-sum and of the order of one, and they count what a game is judged by: whom each
seat finishes ahead of. For each pair of seats, the final margin between them is taken as the
margin expected at the end of this hand plus a normal spread of ``SIGMA_HAND`` points for each
hand still to come after it (and one more for the estimate's own error); a seat's reward is its
mean chance over the others of finishing ahead, less one half, scaled so that a small margin is
worth what it was when rewards counted points (``SCALE`` points a unit). Early in a game that is
the points margin; in the last hands a lead that is safe gains little by growing and a seat that
trails needs more than points, which is what ranking by places rewards (measured:
``docs/strategies.md``).
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
SIGMA_HAND: Final = 70.0
"""Spread (standard deviation) of one hand's point difference between two seats: 62 to 74 at
every deal size between two ``greedy`` bots (200 games of 15 hands), so one figure for all."""
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


def followers_by_suit(hand: Sequence[int]) -> list[int]:
    """How many cards of ``hand`` can follow each suit (eights are wild, not followers): the
    quick policy's and the shedder model's (``craits_bots.belief``) measure of a suit left."""
    by_suit = [0, 0, 0, 0]
    for c in hand:
        if RANK[c] != 8:
            by_suit[SUIT[c]] += 1
    return by_suit


def policy_move(game: Game, legal: Sequence[Move]) -> Move:
    """The quick policy's move for the seat to act (see the module docstring)."""
    hand = game.hands[game.to_act]
    size = len(hand)
    by_suit = followers_by_suit(hand)
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
    """Each seat's reward for the totals it may finish with, from ``before`` (the totals when the
    search began) and ``game`` after a playout that ``ended`` the hand or not (see the module
    docstring): the hand's points are exact when it ended, estimated from the cards held
    otherwise, and turned into chances of finishing ahead of each other seat."""
    taken = [float(after - start) for start, after in zip(before, game.totals, strict=True)]
    if not ended:
        weights = [math.exp(-OUT_SHARPNESS * len(h)) for h in game.hands]
        total_weight = sum(weights)
        out = game.rules.going_out_points
        for seat, cards in enumerate(game.hands):
            first = weights[seat] / total_weight
            taken[seat] += first * out + (1 - first) * hand_score(cards, game.rules)
    final = [start + t for start, t in zip(before, taken, strict=True)]
    hands = len(game.rules.hands_in_game())
    to_come = 0 if game.is_over else hands - game.hand_index - (0 if ended else 1)
    spread = SIGMA_HAND * math.sqrt(to_come + 1)
    unit = spread * _ROOT_TWO
    scale = spread * _ROOT_TWO_PI / SCALE / (2 * (len(final) - 1))
    return [scale * sum(math.erf((theirs - mine) / unit) for theirs in final) for mine in final]


_ROOT_TWO: Final = math.sqrt(2.0)
_ROOT_TWO_PI: Final = math.sqrt(2.0 * math.pi)
