"""Game records: (rules, players, seed, moves) is enough to rebuild a game exactly.

The record also carries the full event log so that a reader (a replay viewer, a report) does not
need the engine; ``replay`` rebuilds the game from the moves and so checks a stored log.
"""

from __future__ import annotations

from collections.abc import Iterable
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


def replay(rules: Rules, players: int, seed: int, moves: Iterable[Move]) -> Game:
    """Rebuild a game by applying ``moves`` to a new game; raises ``IllegalMove`` on a bad one."""
    game = Game.new(rules, players, seed)
    for move in moves:
        game.apply(move)
    return game
