"""A scripted fake referee on a real grpc.aio server (127.0.0.1, port 0), for the SDK's tests.

Each connection the bot makes runs the next script in the list (the last one repeats): a script
is an async function given a ``Conn`` through which it reads the bot's packets and writes the
referee's, exactly as the protocol says, and nothing more than that test needs. Returning from a
script ends the stream with status OK; ``conn.drop()`` ends it with UNAVAILABLE.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import grpc
import grpc.aio

from craits.engine import Game, observe, preset
from craits.protocol import moves_to_pb, observation_to_pb, rules_to_pb
from craits.v1 import referee_pb2 as pb
from craits.v1 import referee_pb2_grpc
from craits_sdk import Bot, Options, serve

TIMEOUT_S = 10.0


Context = grpc.aio.ServicerContext[pb.BotPacket, pb.RefereePacket]


class Conn:
    """One bot stream, seen from the referee."""

    def __init__(self, context: Context, referee: FakeReferee) -> None:
        self.context = context
        self.referee = referee

    async def recv(self) -> pb.BotPacket:
        """The bot's next packet (fails the test if the stream ends or nothing comes)."""
        packet = await asyncio.wait_for(self.context.read(), TIMEOUT_S)
        assert isinstance(packet, pb.BotPacket), "the bot closed its stream"
        self.referee.received.append(packet)
        return packet

    async def recv_moves(self) -> list[pb.MoveReply]:
        """The move replies of the bot's next packet."""
        packet = await self.recv()
        return [m.move for m in packet.messages]

    async def expect_hello(self) -> pb.Hello:
        """Read the handshake."""
        packet = await self.recv()
        assert [m.WhichOneof("payload") for m in packet.messages] == ["hello"]
        return packet.messages[0].hello

    async def send(self, *messages: pb.RefereeMessage) -> None:
        """Write several messages in one packet."""
        await self.context.write(pb.RefereePacket(messages=list(messages)))

    async def handshake(self) -> pb.Hello:
        """Read the Hello and answer Welcome."""
        hello = await self.expect_hello()
        await self.send(welcome())
        return hello

    async def drop(self) -> None:
        """End the stream with an error status, as a crashing network would."""
        await self.context.abort(grpc.StatusCode.UNAVAILABLE, "connection dropped by the test")


Script = Callable[[Conn], Awaitable[None]]


class FakeReferee(referee_pb2_grpc.RefereeServicer):
    """Runs one script per connection and keeps every packet the bot sent."""

    def __init__(self, scripts: Sequence[Script]) -> None:
        self.scripts = list(scripts)
        self.connections = 0
        self.received: list[pb.BotPacket] = []

    async def Connect(  # type: ignore[override]  # answers through context.write, as the referee
        self, request_iterator: AsyncIterator[pb.BotPacket], context: Context
    ) -> None:
        script = self.scripts[min(self.connections, len(self.scripts) - 1)]
        self.connections += 1
        await script(Conn(context, self))


async def run_bot(bot: Bot, scripts: Sequence[Script], **options: Any) -> tuple[int, FakeReferee]:
    """Serve ``bot`` against a fake referee running ``scripts``; return (exit status, referee)."""
    referee = FakeReferee(scripts)
    server = grpc.aio.server()
    referee_pb2_grpc.add_RefereeServicer_to_server(referee, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        opts = Options(f"127.0.0.1:{port}", "secret", backoff_s=0.01, **options)
        status = await asyncio.wait_for(serve(bot, opts), TIMEOUT_S)
    finally:
        await server.stop(None)
    return status, referee


# ----------------------------------------------------------------- referee messages
def welcome() -> pb.RefereeMessage:
    """A Welcome."""
    return pb.RefereeMessage(
        welcome=pb.Welcome(protocol_version=pb.PROTOCOL_VERSION_1, bot_name="b", session_id="s")
    )


def error(code: pb.ErrorCode.ValueType, message: str = "test error") -> pb.RefereeMessage:
    """A fatal Error."""
    return pb.RefereeMessage(error=pb.Error(code=code, message=message))


def shutdown() -> pb.RefereeMessage:
    """The Error that ends a bot's run cleanly."""
    return error(pb.ERROR_CODE_SHUTDOWN, "referee shutting down")


def game_start(game_id: str, game: Game, seat: int) -> pb.RefereeMessage:
    """A GameStart for seat ``seat`` of an engine game."""
    players = [pb.Player(seat=s, name=f"bot{s}") for s in range(game.players)]
    msg = pb.GameStart(game_id=game_id, seat=seat, players=players, rules=rules_to_pb(game.rules))
    msg.time_control.move_ms = 1000
    return pb.RefereeMessage(game_start=msg)


def decision(game_id: str, decision_id: int, game: Game, since: int = 0) -> pb.RefereeMessage:
    """A DecisionRequest for the seat to act in an engine game, history from ``since``."""
    obs = observe(game, game.to_act, since)
    req = pb.DecisionRequest(
        game_id=game_id,
        decision_id=decision_id,
        observation=observation_to_pb(obs),
        legal_moves=moves_to_pb(obs.legal_moves),
        move_ms=1000,
    )
    return pb.RefereeMessage(decision=req)


def rejected(game_id: str, decision_id: int, retries_left: int, reason: str) -> pb.RefereeMessage:
    """A MoveRejected."""
    return pb.RefereeMessage(
        rejected=pb.MoveRejected(
            game_id=game_id, decision_id=decision_id, reason=reason, retries_left=retries_left
        )
    )


def new_game(seed: int = 1, players: int = 3) -> Game:
    """An engine game under the standard rules."""
    return Game.new(preset("standard"), players, seed)


def free_port() -> int:
    """A local port with nothing listening on it."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port
