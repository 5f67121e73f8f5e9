"""The tree of information-set Monte Carlo tree search (single-observer IS-MCTS).

Each iteration plays one sampled world (``craits_sdk.worlds``) from the root: down the tree by
UCB1 while every move of the world's position has been tried (at the root, with a bias towards
the move a heuristic prefers), one new node, then a quick
playout to the end of the hand, and the result backed up. A node is a sequence of moves from the
root, whoever made them; what is legal there depends on the world (the others' cards), so each
child counts how often it was *available* and UCB uses that count instead of the parent's visits
(Cowling, Powley and Whitehouse 2012). Each seat chooses by its own reward (max-n), so the
others are searched as players trying to do well, not as random movers.

Reward: the hand ends with every seat's score for it; a seat's reward is how much less it took
than the average of the others, in units of ``SCALE`` points, so that it is zero-sum and of the
order of one. The search stops at the end of the hand: later hands are dealt from a seed the
seat cannot know, and nothing a seat does in this hand changes them (besides the dealer).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Final

from craits.engine import Game, Move
from craits.engine.cards import RANK
from craits.engine.scoring import CARD_POINTS

SCALE: Final = 60.0
"""Points per unit of reward: about the spread of one hand's scores between seats."""
EXPLORATION: Final = 0.7
"""UCB1's constant, for rewards of the order of one."""
PRIOR_WEIGHT: Final = 2.0
"""Progressive bias towards the root move a heuristic prefers: worth ``PRIOR_WEIGHT / (n + 1)``
of reward after ``n`` visits, so a small search plays the heuristic's move unless it finds
better, and a large one decides by itself."""


class Node:
    """Statistics of one move sequence from the root (see the module docstring)."""

    __slots__ = ("available", "children", "preferred", "reward", "visits")

    def __init__(self, preferred: Move | None = None) -> None:
        self.preferred = preferred
        """The move a heuristic would play here (progressive bias), if any."""
        self.visits = 0
        self.available = 0
        self.reward = 0.0
        """Sum of the rewards of the seat that made the move leading here."""
        self.children: dict[Move, Node] = {}

    def select(self, legal: list[Move]) -> tuple[Move, Node, bool]:
        """The child to follow for the moves legal in this world: an untried one (new) if any,
        else the best by UCB1 over availability. Marks every legal child available."""
        children = self.children
        untried = [m for m in legal if m not in children]
        for move in legal:
            child = children.get(move)
            if child is not None:
                child.available += 1
        if untried:
            move = untried[0]
            node = children[move] = Node()
            node.available = 1
            return move, node, True
        best_move, best_node, best = legal[0], children[legal[0]], -math.inf
        for move in legal:
            node = children[move]
            score = node.reward / node.visits + EXPLORATION * math.sqrt(
                math.log(node.available) / node.visits
            )
            if move == self.preferred:
                score += PRIOR_WEIGHT / (node.visits + 1)
            if score > best:
                best_move, best_node, best = move, node, score
        return best_move, best_node, False


Playout = Callable[[Game, random.Random], None]
"""Plays a world on to the end of its hand."""


def rollout(game: Game, rng: random.Random) -> None:
    """A quick playout to the end of the hand by a cheap greedy policy: mostly the costliest
    card that is not an eight (shedding points is most of the game), an eight only when nothing
    else is playable, a random play one time in ``ROLLOUT_NOISE``, a draw only when no play is
    legal (random players under ``draw_when_able`` would draw half the time)."""
    hand = game.hand_index
    while game.hand_index == hand and not game.is_over:
        legal = game.legal_moves()
        if len(legal) == 1:
            game.apply(legal[0])
            continue
        plays = [m for m in legal if m.card >= 0]
        if not plays:
            game.apply(legal[int(rng.random() * len(legal))])
            continue
        if rng.random() < ROLLOUT_NOISE:
            game.apply(plays[int(rng.random() * len(plays))])
            continue
        best, value = plays[0], -1
        for move in plays:
            points = _ROLLOUT_VALUE[RANK[move.card]]
            if points > value:
                best, value = move, points
        game.apply(best)


ROLLOUT_NOISE: Final = 0.15
"""Share of random plays in a playout, so that playouts differ beyond the deal."""
_ROLLOUT_VALUE: Final = (*CARD_POINTS[:8], -1, *CARD_POINTS[9:])
"""A card's priority in a playout: its points, the eight last."""


def hand_rewards(before: list[int], game: Game) -> list[float]:
    """Each seat's reward for the hand just played (see the module docstring)."""
    taken = [after - start for start, after in zip(before, game.totals, strict=True)]
    total = sum(taken)
    others = len(taken) - 1
    return [((total - t) / others - t) / SCALE for t in taken]


def iterate(root: Node, world: Game, rng: random.Random, playout: Playout = rollout) -> None:
    """One iteration on ``world`` (consumed): select, expand one node, play out, back up."""
    before = list(world.totals)
    hand = world.hand_index
    path: list[tuple[Node, int]] = []
    node = root
    while world.hand_index == hand and not world.is_over:
        seat = world.to_act
        move, node, new = node.select(world.legal_moves())
        path.append((node, seat))
        world.apply(move)
        if new:
            break
    if world.hand_index == hand and not world.is_over:
        playout(world, rng)
    rewards = hand_rewards(before, world)
    root.visits += 1
    for child, seat in path:
        child.visits += 1
        child.reward += rewards[seat]


def best_move(root: Node, legal: tuple[Move, ...]) -> Move:
    """The most visited legal root move (ties: the referee's order)."""
    return max(legal, key=lambda m: root.children[m].visits if m in root.children else -1)
