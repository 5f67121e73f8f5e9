"""Random-legal playouts on other card-game engines, driven from Python like ours.

Why: "fast" means nothing alone. OpenSpiel's ``crazy_eights`` (a C++ engine, PyPI
``open_spiel``) and RLCard's UNO (pure Python, PyPI ``rlcard``) are the engines a game-AI reader
knows; timing them with the same loop as ours (pick a uniformly random legal action with
``random.Random.choice``, apply it, count it) says where the Craits engine stands. Neither is a
dependency: ``pip install -e ".[benchmark]"`` brings both, and a peer that is missing is reported
as such rather than failing the run.

Each ``*_decisions`` function plays whole games for at least ``seconds`` of CPU time and
returns (decisions, games, CPU seconds). A decision is a player's move; OpenSpiel's chance
nodes (the deal, draws) are sampled from their outcomes but not counted. An OpenSpiel or RLCard
game is one hand; a Craits game is 15.
"""

from __future__ import annotations

import importlib.util
import random
import time
from typing import Any, Final

from craits.engine import Game, preset

CLOCK: Final = time.process_time
Rate = tuple[int, int, float]
"""(decisions, games, CPU seconds)."""


def available(module: str) -> bool:
    """Whether a peer's package is installed (``pyspiel`` for OpenSpiel, ``rlcard``)."""
    return importlib.util.find_spec(module) is not None


def craits_decisions(players: int, seconds: float, seed: int = 0) -> Rate:
    """Whole Craits games (standard rules), a random legal move at every decision."""
    rules = preset("standard")
    choice = random.Random(seed).choice
    decisions = games = 0
    start = CLOCK()
    while CLOCK() - start < seconds:
        game = Game.new(rules, players, seed + games)
        legal_moves, apply = game.legal_moves, game.apply
        while not game.is_over:
            apply(choice(legal_moves()))
            decisions += 1
        games += 1
    return decisions, games, CLOCK() - start


def openspiel_decisions(players: int, seconds: float, seed: int = 0) -> Rate:
    """Whole hands of OpenSpiel's ``crazy_eights`` stepped from Python."""
    import pyspiel  # optional: the benchmark extra

    game: Any = pyspiel.load_game("crazy_eights", {"players": players})
    choice = random.Random(seed).choice
    decisions = games = 0
    start = CLOCK()
    while CLOCK() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(choice(state.chance_outcomes())[0])
            else:
                state.apply_action(choice(state.legal_actions()))
                decisions += 1
        games += 1
    return decisions, games, CLOCK() - start


def rlcard_decisions(seconds: float, seed: int = 0) -> Rate:
    """Whole hands of RLCard's UNO (two players: its environment ignores any other number)."""
    import rlcard  # optional: the benchmark extra

    env: Any = rlcard.make("uno", config={"seed": seed})
    choice = random.Random(seed).choice
    decisions = games = 0
    start = CLOCK()
    while CLOCK() - start < seconds:
        state, _ = env.reset()
        while not env.is_over():
            state, _ = env.step(choice(list(state["legal_actions"])))
            decisions += 1
        games += 1
    return decisions, games, CLOCK() - start
