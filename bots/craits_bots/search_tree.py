"""The tree of information-set Monte Carlo tree search (single-observer IS-MCTS).

Each iteration plays one sampled world (``craits_sdk.worlds``) from the root: down the tree by
UCB1 while every move of the world's position has been tried (at the root, with a bias towards
the move a heuristic prefers), one new node, then a short playout by a quick policy and an
estimate of the position it reaches (``craits_bots.playout``), and the result backed up. A node
is a sequence of moves from the root, whoever made them; what is legal there depends on the
world (the others' cards), so each child counts how often it was *available* and UCB uses that
count instead of the parent's visits (Cowling, Powley and Whitehouse 2012). Each seat chooses
by its own reward (max-n), so the others are searched as players trying to do well, not as
random movers.

Reward: a seat's chances of finishing the game ahead of each other seat, from the totals the
hand leaves (exact if the hand ended, estimated otherwise) and the spread of the hands still to
come (``playout.rewards``). The search stops at the end of the hand: later
hands are dealt from a seed the seat cannot know, and nothing a seat does in this hand changes
them (besides the dealer).
"""

from __future__ import annotations

import math
import random
from typing import Final

from craits.engine import Game, Move

from .playout import DEPTH, play_on, rewards

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
        """The child to follow for the moves legal in this world: the first untried one (new)
        if any, else the best by UCB1 over availability. Marks every legal child available.
        One pass over the moves: this runs at every step down the tree."""
        children = self.children
        untried: Move | None = None
        best_move, best_node, best = legal[0], None, -math.inf
        for move in legal:
            node = children.get(move)
            if node is None:
                if untried is None:
                    untried = move
                continue
            node.available += 1
            if untried is not None:
                continue
            visits = node.visits
            explore = math.sqrt(math.log(node.available) / visits)
            score = node.reward / visits + EXPLORATION * explore
            if move == self.preferred:
                score += PRIOR_WEIGHT / (visits + 1)
            if score > best:
                best_move, best_node, best = move, node, score
        if untried is not None:
            node = children[untried] = Node()
            node.available = 1
            return untried, node, True
        assert best_node is not None  # every legal move has a child here
        return best_move, best_node, False


def iterate(root: Node, world: Game, rng: random.Random, depth: int = DEPTH) -> None:
    """One iteration on ``world`` (consumed): select, expand one node, play out for up to
    ``depth`` moves (``craits_bots.playout``), back up."""
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
    ended = world.hand_index != hand or world.is_over or play_on(world, rng, depth)
    reward = rewards(before, world, ended)
    root.visits += 1
    for child, seat in path:
        child.visits += 1
        child.reward += reward[seat]


def best_move(root: Node, legal: tuple[Move, ...]) -> Move:
    """The most visited legal root move (ties: the referee's order)."""
    return max(legal, key=lambda m: root.children[m].visits if m in root.children else -1)
