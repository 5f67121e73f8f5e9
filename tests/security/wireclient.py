"""A bot speaking the raw protocol over real gRPC, run on the loop hosting the referee (inside
``bridge.run``), for the listener's tests: it answers each request as a test says and keeps
every rejection and error it is sent; and the wait for the hub to have seen a client's streams."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

import grpc

from craits.referee import bridge, hub
from craits.v1 import referee_pb2 as pb
from craits.v1 import referee_pb2_grpc as pb_grpc

Answer = Callable[[pb.DecisionRequest], list[pb.MoveReply]]


def first_legal(req: pb.DecisionRequest) -> list[pb.MoveReply]:
    return [pb.MoveReply(game_id=req.game_id, decision_id=req.decision_id, legal_index=0)]


def hello(token: str) -> pb.BotPacket:
    return pb.BotPacket(messages=[pb.BotMessage(hello=pb.Hello(
        protocol_version=pb.PROTOCOL_VERSION_1, token=token))])


@dataclass
class WireBot:
    address: str
    token: str
    answer: Answer = first_legal
    rejections: list[pb.MoveRejected] = field(default_factory=list)
    errors: list[pb.Error] = field(default_factory=list)
    welcomed: bool = False

    def start(self) -> asyncio.Task[None]:
        """(trio) Start playing on the hosting loop."""
        return bridge.hosting_loop().create_task(self.play())

    async def play(self) -> None:
        async with grpc.aio.insecure_channel(self.address) as channel:
            call = pb_grpc.RefereeStub(channel).Connect(None)
            await call.write(hello(self.token))
            while isinstance(packet := await call.read(), pb.RefereePacket):  # else EOF
                if not await self._handle(call, packet):
                    return

    async def _handle(self, call: grpc.aio.StreamStreamCall[pb.BotPacket, pb.RefereePacket],
                      packet: pb.RefereePacket) -> bool:
        for msg in packet.messages:
            case = msg.WhichOneof("payload")
            if case == "welcome":
                self.welcomed = True
            elif case == "rejected":
                self.rejections.append(msg.rejected)
            elif case == "error":
                self.errors.append(msg.error)
                return False
            elif case == "decision":
                replies = self.answer(msg.decision)
                await call.write(pb.BotPacket(messages=[pb.BotMessage(move=r) for r in replies]))
        return True


async def first_message(address: str, packet: pb.BotPacket | None, wait_s: float = 20.0
                        ) -> pb.RefereeMessage | None:
    """(asyncio) Open a stream, send ``packet`` (if any), and return the first message back
    (None when the stream ends with none, or nothing comes within ``wait_s``)."""
    async with grpc.aio.insecure_channel(address) as channel:
        call = pb_grpc.RefereeStub(channel).Connect(None)
        if packet is not None:
            await call.write(packet)
        try:
            reply = await asyncio.wait_for(call.read(), wait_s)
        except (TimeoutError, grpc.aio.AioRpcError):
            return None
        finally:
            call.cancel()
        if not isinstance(reply, pb.RefereePacket):  # the stream ended (EOF)
            return None
        return reply.messages[0]


async def until_waiting(referee_hub: hub.BotHub, streams: int) -> None:
    """(asyncio) Wait until the hub has seen ``streams`` streams not yet past Hello."""
    async with asyncio.timeout(20):
        while referee_hub.waiting_for_hello() < streams:
            await asyncio.sleep(0.01)
