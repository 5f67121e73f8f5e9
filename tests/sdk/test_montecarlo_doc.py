"""The flat Monte Carlo example of docs/writing-a-bot.md runs as printed and plays legal moves."""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

from craits.engine import Game, observe, preset
from craits_bots.greedy import GreedyBot
from craits_sdk import Bot, View

DOC = Path(__file__).resolve().parents[2] / "docs" / "writing-a-bot.md"


def example_module() -> ModuleType:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)
    source = next(b for b in blocks if b.startswith("# montecarlo.py"))
    assert len(source.strip().splitlines()) <= 30  # the doc promises a short example
    module = ModuleType("montecarlo")
    exec(compile(source, str(DOC), "exec"), module.__dict__)
    return module


def test_the_flat_monte_carlo_example_chooses_legal_moves_to_the_end_of_a_game() -> None:
    bot = example_module().MonteCarlo()
    assert isinstance(bot, Bot)
    greedy = GreedyBot()
    game = Game.new(preset("standard").replace(short_game=True), 2, 4)
    asked = 0
    while not game.is_over:
        view = View.from_observation(observe(game, game.to_act), game.rules)
        if game.hand_index >= 5 and game.to_act == 0:  # the last three hands: short playouts
            move = bot.move_for(view)
            assert move in view.legal_moves
            asked += 1
        else:
            move = greedy.move_for(view)
        game.apply(move)
    assert asked >= 3
