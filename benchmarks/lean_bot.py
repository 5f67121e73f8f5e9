"""The leanest correct remote bot: the referee benchmark's stand-in for the raw ping-pong client.

Usage: ``python benchmarks/lean_bot.py HOST:PORT TOKEN [TOKEN ...]``

One process, one ``Connect`` stream per token (one per seat-holding bot), plain grpc.aio like
``pingpong.py``'s client. Every packet it reads is answered with ONE packet holding a
``MoveReply(legal_index=0)`` for each decision request in it (the first legal move is always
legal); everything else is read and ignored. It does no more per message than the ping-pong
client does, so what the benchmark measures beyond the ping-pong is the referee's own cost. It
exits when the referee ends its streams.
"""

from __future__ import annotations

import asyncio
import sys

import grpc

from craits.protocol import PROTOCOL_VERSION
from craits.v1 import referee_pb2 as pb
from craits.v1 import referee_pb2_grpc as pb_grpc


async def _play(stub: pb_grpc.RefereeStub, token: str) -> None:
    """Say hello, then answer every decision request in a packet with one packet."""
    call = stub.Connect()
    hello = pb.BotMessage(hello=pb.Hello(protocol_version=PROTOCOL_VERSION, token=token))
    await call.write(pb.BotPacket(messages=[hello]))
    while True:
        packet = await call.read()
        if not isinstance(packet, pb.RefereePacket):
            return
        reply = pb.BotPacket()
        for message in packet.messages:
            if message.HasField("decision"):
                req = message.decision
                move = reply.messages.add().move
                move.game_id = req.game_id
                move.decision_id = req.decision_id
                move.legal_index = 0
            elif message.HasField("error"):
                return
        if reply.messages:
            await call.write(reply)


async def main(address: str, tokens: list[str]) -> None:
    """Play every token's stream until the referee ends them."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = pb_grpc.RefereeStub(channel)
        await asyncio.gather(*(_play(stub, token) for token in tokens), return_exceptions=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2:]))
