"""``Bot``: the one class a bot author subclasses, and what its ``decide`` may return.

A bot is a plain object with one required method, so that the same class runs over the wire
(``craits_sdk.run``), in the referee's process, and in a test, with no change. Everything about
connections, game bookkeeping and failure handling lives elsewhere in the SDK.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from craits.engine import Card, Event, Move

from .game import GameInfo, GameResult
from .view import View

MoveLike = Move | Card | str | int
"""What ``decide`` may return: a ``Move``; a ``Card`` (the first legal move playing it); a move's
text form such as ``"play 8C suit=H"``; or an index into ``view.legal_moves``."""


class BadDecision(ValueError):
    """``decide`` returned something that names no move."""


class Bot(ABC):
    """Subclass this and write ``decide``; override the ``on_*`` hooks if you need them.

    One instance plays all of a process's games at once, possibly interleaved: keep per-game state
    in a dict keyed by ``game_id``.
    """

    name: str = ""
    """The name sent in the handshake for the referee's logs (default: the class name)."""

    @abstractmethod
    def decide(self, view: View) -> MoveLike:
        """Choose a move for the decision ``view`` describes."""

    def on_game_start(self, game: GameInfo) -> None:  # noqa: B027
        """Called once when a game starts (not again when it resumes after a reconnect)."""

    def on_update(self, game_id: str, events: Sequence[Event]) -> None:  # noqa: B027
        """Called with history that arrived while this bot was not being asked to decide."""

    def on_game_end(self, result: GameResult) -> None:  # noqa: B027
        """Called once when a game ends."""

    def move_for(self, view: View) -> Move:
        """``decide``'s answer as an engine ``Move``; ``BadDecision`` if it names none."""
        return to_move(self.decide(view), view.legal_moves)

    def client_name(self) -> str:
        """How this bot introduces itself in the handshake."""
        return self.name or type(self).__name__


def to_move(choice: object, legal: Sequence[Move]) -> Move:
    """The ``Move`` that a ``MoveLike`` names (see ``MoveLike``); ``BadDecision`` otherwise."""
    if isinstance(choice, Move):
        return choice
    if isinstance(choice, Card):
        return _play_of(choice, legal)
    if isinstance(choice, str):
        try:
            return Move.parse(choice)
        except ValueError as exc:
            raise BadDecision(str(exc)) from None
    if isinstance(choice, int) and not isinstance(choice, bool):
        if not 0 <= choice < len(legal):
            raise BadDecision(f"index {choice} is outside legal_moves (0..{len(legal) - 1})")
        return legal[choice]
    raise BadDecision(
        f"decide() returned {choice!r} ({type(choice).__name__}); return a Move, a Card, "
        "a move text like 'play 8C suit=H', or an index into view.legal_moves"
    )


def _play_of(card: Card, legal: Sequence[Move]) -> Move:
    for move in legal:
        if move.card == card:
            return move
    raise BadDecision(f"no legal move plays {card}")
