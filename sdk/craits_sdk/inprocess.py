"""A ``Bot`` as a plain function ``(Observation, Rules) -> Move``, for a referee's in-process seats.

Such a function is told nothing about which game it is in, so the adapter infers it: an
observation whose history starts at index 0 opens a new game (unless it is the very same
observation asked again, as after a refused answer). Later observations may carry only the new
history; the adapter's ``GameInfo`` stitches it together so that ``view.events`` is complete.
``on_game_start`` is called for each new game; ``on_game_end`` cannot be, as nothing says when a
game ended.
"""

from __future__ import annotations

from collections.abc import Callable

from craits.engine import Move, Observation, Rules

from .bot import Bot
from .game import GameInfo, default_names
from .view import View

Policy = Callable[[Observation, Rules], Move]
"""What the referee's in-process seat calls for each decision."""


class BotPolicy:
    """Callable as a ``Policy``; asks one bot instance, which should play one seat only."""

    def __init__(self, bot: Bot, game_prefix: str = "inprocess-") -> None:
        self.bot = bot
        self.game_prefix = game_prefix
        self.games_started = 0
        self._game: GameInfo | None = None
        self._last: Observation | None = None

    def __call__(self, obs: Observation, rules: Rules) -> Move:
        """The bot's move for this observation (``BadDecision`` if it names none)."""
        game = self._game
        if game is None or (obs.events_from == 0 and obs != self._last):
            game = self._new_game(obs, rules)
        self._last = obs
        return self.bot.move_for(View.from_observation(obs, rules, game=game))

    def _new_game(self, obs: Observation, rules: Rules) -> GameInfo:
        self.games_started += 1
        game_id = f"{self.game_prefix}{self.games_started}"
        self._game = GameInfo(game_id, obs.seat, default_names(obs.players), rules)
        self.bot.on_game_start(self._game)
        return self._game


def as_policy(bot: Bot, game_prefix: str = "inprocess-") -> Policy:
    """``bot`` as an in-process policy; its games are named ``game_prefix`` + 1, 2, ..."""
    return BotPolicy(bot, game_prefix)
