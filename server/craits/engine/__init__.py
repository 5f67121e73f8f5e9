"""The pure Craits rules engine: no I/O; deterministic from (rules, players, seed, moves).

Typical use::

    from craits.engine import Game, preset, observe
    game = Game.new(preset("standard"), players=4, seed=7)
    while not game.is_over:
        seat = game.to_act
        view = observe(game, seat)          # what that seat may see
        game.apply(view.legal_moves[0])     # any legal move
    print(game.outcome)
"""

from .cards import CARDS, Card, CardError, format_cards, parse_cards, parse_suit
from .events import Event
from .functions import Phase
from .moves import Move, MoveError, MoveKind
from .observation import Observation, observe
from .record import GameRecord, replay
from .rules import PRESETS, Rules, RulesError, preset, rules_from_settings
from .scoring import hand_score, places
from .state import Game, IllegalMove, Outcome, game_deck

__all__ = [
    "CARDS",
    "PRESETS",
    "Card",
    "CardError",
    "Event",
    "Game",
    "GameRecord",
    "IllegalMove",
    "Move",
    "MoveError",
    "MoveKind",
    "Observation",
    "Outcome",
    "Phase",
    "Rules",
    "RulesError",
    "format_cards",
    "game_deck",
    "hand_score",
    "observe",
    "parse_cards",
    "parse_suit",
    "places",
    "preset",
    "replay",
    "rules_from_settings",
]
