"""Offline play: bots against each other in this process, on the engine, with no referee.

For trying a bot out and for tests. It drives the engine exactly as a seat sees it (one
``View`` per decision, the whole history accumulated per seat, the hooks called) but, unlike the
referee, forgives nothing: an exception in ``decide`` or an illegal move propagates, because
offline that is what a bot author wants to see.
"""

from __future__ import annotations

from collections.abc import Sequence

from craits.engine import Game, Outcome, Rules, observe, preset

from .bot import Bot
from .game import GameInfo, GameResult
from .view import View


def play_game(
    bots: Sequence[Bot], rules: Rules | None = None, seed: int = 0, game_id: str = "local"
) -> Outcome:
    """Play one whole game, seat ``i`` played by ``bots[i]``; give each bot its own instance."""
    rules = rules or preset("standard")
    game = Game.new(rules, len(bots), seed)
    names = tuple(bot.client_name() for bot in bots)
    infos = [GameInfo(game_id, seat, names, rules) for seat in range(len(bots))]
    for bot, info in zip(bots, infos, strict=True):
        bot.on_game_start(info)
    decision = 0
    while not game.is_over:
        seat = game.to_act
        info = infos[seat]
        obs = observe(game, seat, since=info.next_index)
        decision += 1
        view = View.from_observation(obs, rules, game=info, decision_id=decision)
        game.apply(bots[seat].move_for(view))
    assert game.outcome is not None, "a finished game has an outcome"
    for bot, info in zip(bots, infos, strict=True):
        bot.on_game_end(_result(game, info))
    return game.outcome


def _result(game: Game, info: GameInfo) -> GameResult:
    """A seat's result of a finished game, after giving it the last of the history."""
    info.record([e.seen_by(info.seat) for e in game.events[info.next_index :]], info.next_index)
    outcome = game.outcome
    assert outcome is not None, "only finished games have results"
    return GameResult(
        game_id=info.game_id,
        seat=info.seat,
        totals=outcome.totals,
        places=outcome.places,
        strikes=(0,) * game.players,
        forfeited=(False,) * game.players,
        game=info,
    )
