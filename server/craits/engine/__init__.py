"""The pure Craits rules engine: no I/O; deterministic from (rules, players, seed, moves).

Typical use::

    from . import Game, preset, observe
    game = Game.new(preset("standard"), players=4, seed=7)
    while not game.is_over:
        seat = game.to_act
        view = observe(game, seat)          # what that seat may see
        game.apply(view.legal_moves[0])     # any legal move
    print(game.outcome)

The modules a decision runs through may be compiled with mypyc (``bash .ci/build-engine``);
``COMPILED`` says which build was imported and ``native.py`` how it is chosen.
"""

# ruff: noqa: E402  (the submodules are imported after the build is chosen, not at the top)
from . import native

_NOT_NATIVE = native.native_status()
if _NOT_NATIVE is None:  # the compiled modules shadow their sources (never a stale build)
    __path__.insert(0, str(native.NATIVE_DIR))

from . import state as _state
from .cards import CARDS, Card, CardError, format_cards, parse_cards, parse_suit
from .events import Event, EventKind
from .functions import Phase
from .moves import Move, MoveError, MoveKind
from .observation import Observation, observe
from .record import GameRecord, replay
from .rules import PRESETS, Rules, RulesError, preset, rules_from_settings
from .scoring import hand_score, places
from .state import Game, IllegalMove, Outcome, game_deck, shuffle

COMPILED: bool = not _state.__file__.endswith(".py")
"""True when the mypyc-compiled engine was imported, False for pure Python."""
NOT_COMPILED_BECAUSE: str | None = None if COMPILED else (_NOT_NATIVE or "it failed to load")
"""Why the pure-Python engine runs (None when compiled)."""

__all__ = [
    "CARDS",
    "COMPILED",
    "PRESETS",
    "Card",
    "CardError",
    "Event",
    "EventKind",
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
    "shuffle",
]
