"""``IsmctsBot``: information-set Monte Carlo tree search over sampled worlds.

Five pieces, each in its own module: the SDK's sampler deals worlds that agree with what the
seat has seen (``craits_sdk.worlds``), a model of how the others choose draws the worlds that
explain their plays more often (``craits_bots.belief``), the tree searches them
(``craits_bots.search_tree``), a short playout and an estimate finish each iteration
(``craits_bots.playout``), and the budget
says for how long (``craits_bots.budget``: half of ``move_ms`` plus half the bank
spread over the decisions the seat still expects). The root is biased towards the ``expert``
bot's move, so that a short search plays at least as the expert does and a longer one overrules
it where the sampled worlds say so. A fixed ``iterations`` replaces the clock and
makes the bot deterministic: every decision's RNG is seeded from the bot's seed, the game id,
the seat and how far the game has gone, so a game replays the same however the process
interleaves its games. On the compiled engine about 100 ms of CPU a decision buys 830
iterations at tables of 2, 680 at 3 and 380 at 4 on the 2-core machine of
``docs/strategies.md``. A sampled world serves ``WORLD_REUSE`` iterations on average: dealing
one and weighing it cost more than the rest of an iteration at the larger tables. Each
iteration's reward is each seat's chance of finishing the game ahead of the others
(``craits_bots.playout.rewards``), what a tournament ranks by.

Environment (for the launched process): ``CRAITS_BOT_SEED`` as for ``random``;
``CRAITS_ISMCTS_MS`` caps the thinking time of a decision (to compare budgets in a tournament);
``CRAITS_ISMCTS_ITERATIONS`` fixes the number of iterations instead.
"""

from __future__ import annotations

import os
import random
import sys
import time
from collections.abc import Iterator
from typing import Final

from craits.engine import Game, Move
from craits_sdk import Bot, View, WorldError, WorldSampler, run

from .belief import WeightedWorlds, weight_exponent
from .budget import Budget
from .expert import ExpertBot
from .playout import DEPTH
from .random import seed_from_env
from .search_tree import Node, best_move, iterate

WORLD_REUSE: Final = 4
"""Iterations per sampled world. Weighted worlds (the default) are drawn from a pool that grows
by one world every ``WORLD_REUSE`` iterations. Unweighted ones (``belief=False``) are played this
many times each (copies of it, then the world itself) at tables of three or more: dealing a
world consistent with the hand's history costs more the more players there are (at 4 players
reuse cut 300 iterations from ~146 to ~50 ms of CPU, at 2 from ~49 to ~37), and at tables of two
600 fresh worlds scored better against ``greedy`` than 800 iterations on 200 worlds (within the
noise, ``docs/strategies.md``)."""


def world_reuse(players: int) -> int:
    """Iterations a sampled world is played for at a table of ``players`` (``WORLD_REUSE``)."""
    return 1 if players <= 2 else WORLD_REUSE


def worlds(sampler: WorldSampler, rng: random.Random, reuse: int = WORLD_REUSE) -> Iterator[Game]:
    """Sampled worlds without end, each handed out ``reuse`` times: copies first, then the
    world itself (an iteration consumes the world it is given)."""
    while True:
        world = sampler.sample(rng, history=False)
        for _ in range(reuse - 1):
            yield world.clone()
        yield world


def _env_number(name: str) -> float | None:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number, got {raw!r}") from None
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {raw!r}")
    return value


class IsmctsBot(Bot):
    """Searches sampled worlds for the move that loses the fewest points this hand."""

    name = "ismcts"

    def __init__(
        self, seed: int | None = None, *, iterations: int | None = None,
        cap_ms: float | None = None, depth: int = DEPTH, reuse: int | None = None,
        belief: bool = True,
    ) -> None:
        self.seed = seed_from_env() if seed is None else seed
        self.depth = depth
        """Moves a playout makes before its position is estimated (``craits_bots.playout``)."""
        if reuse is not None and reuse < 1:
            raise ValueError(f"reuse must be at least 1, got {reuse}")
        self.reuse = reuse
        """Iterations per sampled world; None: ``WORLD_REUSE`` with ``belief``, else by the table
        size (``world_reuse``)."""
        self.belief = belief
        """Draw worlds by how well they explain the others' plays (``craits_bots.belief``)
        rather than all alike."""
        env_iterations = _env_number("CRAITS_ISMCTS_ITERATIONS")
        self.iterations = iterations or (int(env_iterations) if env_iterations else None)
        self.cap_ms = cap_ms if cap_ms is not None else _env_number("CRAITS_ISMCTS_MS")
        self.fallback = ExpertBot()
        self.last_iterations = 0
        """How many iterations the last decision ran (for tests and curious authors)."""

    def decide(self, view: View) -> Move:
        """The root move searched most often; the expert's move when there is nothing to
        search (one legal move) or no world can be sampled (the history is incomplete)."""
        if len(view.legal_moves) == 1:
            return view.legal_moves[0]
        try:
            sampler = view.world_sampler()
        except WorldError as exc:
            print(f"ismcts: {exc}; playing the expert's move", file=sys.stderr)
            return self.fallback.decide(view)
        rng = random.Random(f"craits-ismcts:{self.seed}:{view.game_id}:{view.seat}:"
                            f"{view.history_len}:{len(view.hand)}")
        root = Node(preferred=self.fallback.move_for(view))
        supply = (WeightedWorlds(sampler, rng, self.reuse or WORLD_REUSE,
                                 weight_exponent(view.players)) if self.belief
                  else worlds(sampler, rng, self.reuse or world_reuse(view.players)))
        done = 0
        if self.iterations is not None:
            for _ in range(self.iterations):
                iterate(root, next(supply), rng, self.depth)
            done = self.iterations
        else:
            deadline = self._budget(view).deadline()
            while time.perf_counter() < deadline:
                iterate(root, next(supply), rng, self.depth)
                done += 1
        self.last_iterations = done
        return best_move(root, view.legal_moves)

    def _budget(self, view: View) -> Budget:
        later = sum(view.rules.hands_in_game()[view.hand_number:])
        decisions_left = len(view.hand) + later
        return Budget.of(view.move_ms, view.bank_ms, decisions_left, self.cap_ms)


if __name__ == "__main__":
    run(IsmctsBot)
