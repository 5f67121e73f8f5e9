"""Game records: (rules, players, seed, moves) is enough to rebuild a game exactly.

The record also carries the full event log so that a reader (a replay viewer, a report) does not
need the engine; ``replay`` rebuilds the game from the moves and so checks a stored log.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .events import Event
from .moves import Move
from .rules import Rules
from .state import Game


@dataclass(slots=True)
class GameRecord:
    """Everything needed to replay and to read one game."""

    rules: Rules
    players: int
    seed: int
    moves: list[Move] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    @staticmethod
    def of(game: Game, moves: Iterable[Move]) -> GameRecord:
        """The record of ``game`` played with ``moves``."""
        return GameRecord(game.rules, game.players, game.seed, list(moves), list(game.events))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: rules as an object, moves as text, events in their readable form."""
        return {
            "rules": self.rules.to_dict(),
            "players": self.players,
            "seed": self.seed,
            "moves": [str(m) for m in self.moves],
            "events": [e.to_dict() for e in self.events],
        }

    @staticmethod
    def from_dict(data: dict[str, Any]) -> GameRecord:
        """Inverse of ``to_dict``."""
        return GameRecord(
            rules=Rules.from_dict(data["rules"]),
            players=int(data["players"]),
            seed=int(data["seed"]),
            moves=[Move.parse(m) for m in data.get("moves", ())],
            events=[Event.from_dict(e) for e in data.get("events", ())],
        )


def choice_of(legal: Sequence[Move], move: Move) -> int:
    """Where ``move`` sits among the ``legal`` moves of its decision: the shortest way to store
    it, since the engine rebuilds the list (in its stable order) on replay. A move that leaves
    out a required "one card" announcement (legal, and penalised) is not in the list: it is
    ``-1 - i`` for the announced move at ``i``. ``ValueError`` for a move that is not legal."""
    try:
        return legal.index(move)
    except ValueError:
        if move.one_card:
            raise
        return -1 - legal.index(move.announced(True))


def move_at(legal: Sequence[Move], choice: int) -> Move:
    """The move ``choice_of`` gave ``choice`` (``IndexError`` if there is none)."""
    if choice >= 0:
        return legal[choice]
    return legal[-1 - choice].announced(False)


def replay(rules: Rules, players: int, seed: int, moves: Iterable[Move]) -> Game:
    """Rebuild a game by applying ``moves`` to a new game; raises ``IllegalMove`` on a bad one."""
    game = Game.new(rules, players, seed)
    for move in moves:
        game.apply(move)
    return game
