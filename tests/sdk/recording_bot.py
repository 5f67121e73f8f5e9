"""A bot for the SDK's client tests that answers as a test says and records everything it is
told."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from craits.engine import Event, Move
from craits_sdk import Bot, GameInfo, GameResult, View


class RecordingBot(Bot):
    """Answers with ``choose(view)`` (default: the first legal move) and records everything."""

    name = "recorder"

    def __init__(self, choose: Callable[[View], object] | None = None) -> None:
        self.choose = choose or (lambda view: view.legal_moves[0])
        self.views: list[View] = []
        self.started: list[GameInfo] = []
        self.updates: list[tuple[str, Sequence[Event]]] = []
        self.ended: list[GameResult] = []

    def decide(self, view: View) -> Move:
        self.views.append(view)
        return self.choose(view)  # type: ignore[return-value]

    def on_game_start(self, game: GameInfo) -> None:
        self.started.append(game)

    def on_update(self, game_id: str, events: Sequence[Event]) -> None:
        self.updates.append((game_id, events))

    def on_game_end(self, result: GameResult) -> None:
        self.ended.append(result)
