"""The pipe's side of the protocol: referee messages routed to games, replies queued for the wire.

Handling a packet never waits: every game-scoped message goes to its game's inbox and the game's
own task answers when its child does (``game.py``). Replies wait in ``outbox``, which outlives a
connection, so an answer the child gives while the stream is being re-dialled is not lost; the
connection loop (the SDK's ``craits_sdk.client``, which drives a ``PipeSession`` as a
``SessionLike``) drains the outbox into as few packets as it can.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any, Final

from craits.protocol import PROTOCOL_VERSION
from craits.v1 import referee_pb2 as pb
from craits_sdk import RefereeError

from .game import LOG, ChildSpec, PipeGame

CLIENT_NAME: Final = "craits-pipe"


class PipeSession:
    """All games of one pipe process, across its connections. Create inside a running loop."""

    def __init__(self, spec: ChildSpec) -> None:
        self.spec = spec
        self.outbox: asyncio.Queue[pb.BotMessage] = asyncio.Queue()
        self.games: dict[str, PipeGame] = {}
        self.welcome: pb.Welcome | None = None
        self.ever_welcomed = False
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._closing: set[asyncio.Task[None]] = set()
        self.stopped: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        """Set, with the reason, once a game found that the command cannot run at all."""

    def hello(self, token: str) -> pb.BotPacket:
        """The first packet of a new connection."""
        self.welcome = None
        hello = pb.Hello(protocol_version=PROTOCOL_VERSION, token=token, client=CLIENT_NAME)
        return pb.BotPacket(messages=[pb.BotMessage(hello=hello)])

    def handle(self, packet: pb.RefereePacket) -> Sequence[pb.BotMessage]:
        """Route a packet's messages in order; ``RefereeError`` on a fatal ``Error``.

        Returns no reply: every answer comes later, through ``outbox``.
        """
        for message in packet.messages:
            kind = message.WhichOneof("payload")
            handler = _HANDLERS.get(kind or "")
            if handler is None:
                LOG.warning("ignoring a referee message of unknown kind %r", kind)
                continue
            handler(self, getattr(message, kind or ""))
        return ()

    async def close(self) -> None:
        """Stop every game and close every child (the process is ending)."""
        for game_id in list(self.games):
            self._on_game_end(pb.GameEnd(game_id=game_id))
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)

    # ------------------------------------------------------------ handlers
    def _on_welcome(self, msg: pb.Welcome) -> None:
        self.welcome, self.ever_welcomed = msg, True
        LOG.info("connected as %r (session %s)", msg.bot_name, msg.session_id)

    def _on_game_start(self, msg: pb.GameStart) -> None:
        if msg.game_id in self.games:
            LOG.info("game %s resumed", msg.game_id)
            return
        game = PipeGame(msg, self.spec, self.outbox.put_nowait, self._stop)
        self.games[msg.game_id] = game
        self._tasks[msg.game_id] = asyncio.create_task(game.run(), name=f"game {msg.game_id}")
        LOG.info("game %s: seat %d, started %s", msg.game_id, msg.seat, " ".join(self.spec.argv))

    def _on_game_end(self, msg: pb.GameEnd) -> None:
        """Stop the game's task (even mid-question: the answer is no longer wanted), then EOF."""
        game = self.games.pop(msg.game_id, None)
        task = self._tasks.pop(msg.game_id, None)
        if game is None or task is None:
            return
        task.cancel()
        closing = asyncio.create_task(_close_after(task, game))
        self._closing.add(closing)
        closing.add_done_callback(self._closing.discard)

    def _on_error(self, msg: pb.Error) -> None:
        raise RefereeError(msg.code, msg.message)

    def _stop(self, reason: str) -> None:
        if not self.stopped.done():
            self.stopped.set_result(reason)

    def _route(self, msg: pb.DecisionRequest | pb.MoveRejected | pb.GameUpdate) -> None:
        game = self.games.get(msg.game_id)
        if game is None:
            LOG.warning("%s for game %r, which is not running here", type(msg).__name__,
                        msg.game_id)
            return
        game.inbox.put_nowait(msg)


_HANDLERS: Final[dict[str, Callable[[PipeSession, Any], None]]] = {
    "welcome": PipeSession._on_welcome,
    "game_start": PipeSession._on_game_start,
    "game_end": PipeSession._on_game_end,
    "error": PipeSession._on_error,
    "decision": PipeSession._route,
    "rejected": PipeSession._route,
    "update": PipeSession._route,
}
"""Referee message kind (the ``payload`` oneof case) -> its handler; the game-scoped kinds all
go to their game's inbox."""


async def _close_after(task: asyncio.Task[None], game: PipeGame) -> None:
    """Let the cancelled task unwind, then close the game's child."""
    await asyncio.gather(task, return_exceptions=True)
    await game.close()
