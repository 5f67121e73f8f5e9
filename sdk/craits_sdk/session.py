"""The bot side of the protocol without any I/O: referee packets in, reply messages out.

Kept apart from the gRPC loop (``client.py``, which drives it as a ``SessionLike``) so that every
protocol rule can be read in one place and tested without a network. A ``Session`` outlives a
connection: after a reconnect the referee re-sends ``GameStart`` and the pending
``DecisionRequest`` of each live game, and the session's games and open decisions are what make
that resume seamless.

The failure rules, all here: an exception in ``decide`` or a return value that names no move is
logged with its traceback and answered with the first legal move; a refused answer is retried
(``view.rejection`` set) while the referee allows, and a bot that repeats the refused move gets a
different legal move sent for it; an exception in a hook is logged and ignored. The bot never
stalls a game.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from craits.engine import Move
from craits.protocol import PROTOCOL_VERSION
from craits.v1 import referee_pb2 as pb

from .bot import Bot
from .game import GameInfo
from .view import Rejection, View
from .wire import (
    game_from_start,
    index_reply,
    move_reply,
    result_from_end,
    view_from_request,
)

LOG: Final = logging.getLogger("craits_sdk")

_Handler = Callable[["Session", Any], "pb.BotMessage | None"]
"""A handler of one kind of referee message: returns the reply to send, if any."""


class RefereeError(Exception):
    """The referee sent a fatal ``Error``; the stream is over."""

    def __init__(self, code: pb.ErrorCode.ValueType, message: str) -> None:
        self.code = code
        self.message = message
        name = pb.ErrorCode.Name(code) if code in pb.ErrorCode.values() else str(code)
        super().__init__(f"{name}: {message}")


@dataclass(slots=True)
class _Open:
    """A decision answered but not yet superseded: what a rejection or a re-send refers to."""

    decision_id: int
    view: View | None
    move: Move | None
    reply: pb.BotMessage


class Session:
    """Protocol state of one bot process across all its connections and games."""

    outbox: Final = None
    """No reply comes later: ``handle`` returns every one (see ``client.SessionLike``)."""

    def __init__(self, bot: Bot, log: logging.Logger = LOG) -> None:
        self.bot = bot
        self.log = log
        self.games: dict[str, GameInfo] = {}
        self.welcome: pb.Welcome | None = None
        """The current connection's ``Welcome``, ``None`` until it arrives."""
        self.ever_welcomed = False
        self._open: dict[str, _Open] = {}

    def hello(self, token: str) -> pb.BotPacket:
        """The first packet of a new connection (forgets the previous connection's welcome)."""
        self.welcome = None
        hello = pb.Hello(
            protocol_version=PROTOCOL_VERSION, token=token, client=self.bot.client_name()
        )
        return pb.BotPacket(messages=[pb.BotMessage(hello=hello)])

    def handle(self, packet: pb.RefereePacket) -> list[pb.BotMessage]:
        """Handle a packet's messages in order; return the replies to send in one packet.

        A message the SDK cannot handle is logged, never fatal to the bot (a fatal ``Error``
        raises ``RefereeError``).
        """
        replies: list[pb.BotMessage] = []
        for message in packet.messages:
            kind = message.WhichOneof("payload")
            handler = _HANDLERS.get(kind or "")
            if handler is None:
                self.log.warning("ignoring a referee message of unknown kind %r", kind)
                continue
            payload = getattr(message, kind or "")
            try:
                reply = handler(self, payload)
            except RefereeError:
                raise
            except Exception:
                self.log.exception("could not handle a referee message: %s", _brief(payload))
                continue
            if reply is not None:
                replies.append(reply)
        return replies

    # ----------------------------------------------------------------- handlers
    def _on_welcome(self, msg: pb.Welcome) -> None:
        self.welcome = msg
        self.ever_welcomed = True
        self.log.info("connected as %r (session %s)", msg.bot_name, msg.session_id)

    def _on_game_start(self, msg: pb.GameStart) -> None:
        if msg.game_id in self.games:
            self.log.info("game %s resumed", msg.game_id)
            return
        try:
            game = game_from_start(msg)
        except ValueError as exc:
            self.log.error("game %s: unreadable rules (%s); assuming standard", msg.game_id, exc)
            msg = _without_rules(msg)
            game = game_from_start(msg)
        self.games[msg.game_id] = game
        self._hook(self.bot.on_game_start, game)

    def _on_decision(self, req: pb.DecisionRequest) -> pb.BotMessage:
        prior = self._open.get(req.game_id)
        if prior is not None and prior.decision_id == req.decision_id:
            return prior.reply  # a re-send after a reconnect: same answer, same history
        try:
            view = view_from_request(req, self._game(req.game_id))
        except ValueError as exc:
            self.log.error("game %s: unreadable decision request (%s)", req.game_id, exc)
            reply = index_reply(req.game_id, req.decision_id)
            self._open[req.game_id] = _Open(req.decision_id, None, None, reply)
            return reply
        return self._answer(view, self._decide(view))

    def _on_rejected(self, msg: pb.MoveRejected) -> pb.BotMessage | None:
        self.log.warning(
            "game %s decision %d: answer refused: %s (%d retries left)",
            msg.game_id, msg.decision_id, msg.reason, msg.retries_left,
        )
        prior = self._open.get(msg.game_id)
        if prior is None or prior.decision_id != msg.decision_id or prior.view is None:
            return None
        if msg.retries_left == 0:
            return None
        view = prior.view.with_rejection(Rejection(msg.reason, msg.retries_left, prior.move))
        move = self._decide(view)
        if move == prior.move:
            move = next((m for m in view.legal_moves if m != prior.move), move)
        return self._answer(view, move)

    def _on_update(self, msg: pb.GameUpdate) -> None:
        game = self._game(msg.game_id)
        added = game.record_wire(msg.events)
        hook = self.bot.on_update
        if added and getattr(hook, "__func__", None) is not Bot.on_update:  # else none to convert
            self._hook(hook, msg.game_id, game.latest(added))

    def _on_game_end(self, msg: pb.GameEnd) -> None:
        game = self.games.pop(msg.game_id, None) or self._unknown_game(msg.game_id)
        self._open.pop(msg.game_id, None)
        self._hook(self.bot.on_game_end, result_from_end(msg, game))

    def _on_error(self, msg: pb.Error) -> None:
        raise RefereeError(msg.code, msg.message)

    # ----------------------------------------------------------------- helpers
    def _decide(self, view: View) -> Move:
        """The bot's move, or the first legal move if ``decide`` fails in any way."""
        try:
            return self.bot.move_for(view)
        except Exception:
            self.log.exception(
                "game %s decision %d: decide() failed; answering the first legal move",
                view.game_id, view.decision_id,
            )
            return view.legal_moves[0] if view.legal_moves else Move.draw()

    def _answer(self, view: View, move: Move) -> pb.BotMessage:
        reply = move_reply(view.game_id, view.decision_id, move, view.legal_moves)
        self._open[view.game_id] = _Open(view.decision_id, view, move, reply)
        return reply

    def _game(self, game_id: str) -> GameInfo:
        """The game's state; a game whose start never arrived is created with a warning."""
        game = self.games.get(game_id)
        if game is None:
            game = self.games[game_id] = self._unknown_game(game_id)
        return game

    def _unknown_game(self, game_id: str) -> GameInfo:
        self.log.warning("game %s: message for a game that never started", game_id)
        return game_from_start(pb.GameStart(game_id=game_id))

    def _hook(self, hook: Callable[..., None], *args: Any) -> None:
        try:
            hook(*args)
        except Exception:
            self.log.exception("%s() failed; carrying on", hook.__name__)


def _without_rules(msg: pb.GameStart) -> pb.GameStart:
    copy = pb.GameStart()
    copy.CopyFrom(msg)
    copy.ClearField("rules")
    return copy


def _brief(payload: Any) -> str:
    text = str(payload).replace("\n", " ")
    return text if len(text) <= 200 else text[:200] + "..."


_HANDLERS: Final[dict[str, _Handler]] = {
    "welcome": Session._on_welcome,
    "game_start": Session._on_game_start,
    "decision": Session._on_decision,
    "rejected": Session._on_rejected,
    "update": Session._on_update,
    "game_end": Session._on_game_end,
    "error": Session._on_error,
}
"""Referee message kind (the ``payload`` oneof case) -> its handler."""
