"""The Craits bot SDK: subclass ``Bot``, write ``decide(view)``, call ``run``.

Minimal bot::

    from craits_sdk import Bot, run

    class MyBot(Bot):
        def decide(self, view):
            return view.legal_moves[0]

    if __name__ == "__main__":
        run(MyBot)

The SDK connects to the referee (``CRAITS_SERVER``, ``CRAITS_TOKEN``), plays any number of games
at once, keeps each game's whole history, survives a dropped connection, and answers the first
legal move whenever ``decide`` fails, so that a bug costs a move rather than the game.
See ``docs/writing-a-bot.md``.
"""

from .bot import BadDecision, Bot, MoveLike, to_move
from .cli import run
from .client import EXIT_FAILURE, EXIT_OK, EXIT_REFUSED, EXIT_UNREACHABLE, Options, serve
from .game import GameInfo, GameResult
from .inprocess import as_policy
from .local import play_game
from .session import RefereeError, Session
from .view import Rejection, View
from .worlds import Choice, WorldError, WorldSampler

__all__ = [
    "EXIT_FAILURE",
    "EXIT_OK",
    "EXIT_REFUSED",
    "EXIT_UNREACHABLE",
    "BadDecision",
    "Bot",
    "Choice",
    "GameInfo",
    "GameResult",
    "MoveLike",
    "Options",
    "RefereeError",
    "Rejection",
    "Session",
    "View",
    "WorldError",
    "WorldSampler",
    "as_policy",
    "play_game",
    "run",
    "serve",
    "to_move",
]
