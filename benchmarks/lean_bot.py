"""The leanest correct remote bot: the referee benchmark's stand-in for the raw ping-pong client.

Usage: ``python benchmarks/lean_bot.py HOST:PORT TOKEN [TOKEN ...]``

One process, one ``Connect`` stream per token (one per seat-holding bot), plain grpc.aio like
``pingpong.py``'s client. Every packet it reads is answered with ONE packet holding a
``MoveReply(legal_index=0)`` for each decision request in it (the first legal move is always
legal); everything else is read and ignored. It does no more per message than the ping-pong
client does, so what the benchmark measures beyond the ping-pong is the referee's own cost. It
exits when the referee ends its streams.

With ``LEAN_BOT_STATS=PATH`` set (``referee_tail.py`` sets it), it also times its own work on
each packet, from the read's return to the write's call, and writes the times (seconds, a JSON
list) to PATH when it exits.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time

import grpc

from craits.protocol import PROTOCOL_VERSION
from craits.v1 import referee_pb2 as pb
from craits.v1 import referee_pb2_grpc as pb_grpc


async def _play(stub: pb_grpc.RefereeAsyncStub, token: str, work: list[float] | None) -> None:
    """Say hello, then answer every decision request in a packet with one packet (and time
    that work into ``work``, if given)."""
    call = stub.Connect(None)
    hello = pb.BotMessage(hello=pb.Hello(protocol_version=PROTOCOL_VERSION, token=token))
    await call.write(pb.BotPacket(messages=[hello]))
    while True:
        packet = await call.read()
        if not isinstance(packet, pb.RefereePacket):
            return
        started = time.perf_counter()
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
            if work is not None:
                work.append(time.perf_counter() - started)
            await call.write(reply)


async def main(address: str, tokens: list[str]) -> None:
    """Play every token's stream until the referee ends them."""
    stats = os.environ.get("LEAN_BOT_STATS")
    work: list[float] | None = [] if stats else None
    async with grpc.aio.insecure_channel(address) as channel:
        stub = pb_grpc.RefereeStub(channel)
        await asyncio.gather(*(_play(stub, token, work) for token in tokens),
                             return_exceptions=True)
    if stats and work is not None:
        with open(stats, "w") as f:
            json.dump(work, f)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2:]))
