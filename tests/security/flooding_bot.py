"""A sandboxed bot that plays like ``random`` while it floods the referee's Unix socket it was
given (issue 30, part 3), from its Welcome until it is ended: new connections with streams that
never say Hello (each ends an older one waiting to say Hello wherever they share a cap), and
among them streams that say Hello with a wrong token and streams that send a burst of messages
before any Hello. It reports nothing: ``test_socket_flood.py`` judges it by the other bot's
games. Run by the tournament as ``python3 flooding_bot.py``, beside the tournament file."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections import deque

import grpc
import grpc.aio

from craits.v1 import referee_pb2 as pb
from craits.v1 import referee_pb2_grpc as pb_grpc
from craits_bots.random import RandomBot
from craits_sdk.client import Options, serve_session
from craits_sdk.session import Session

OPEN: int = 150
"""Connections kept open at once, well over the shared socket's cap of streams waiting to say
Hello (64; its oldest ended beyond), within the sandbox's 256 descriptors: with fewer, closing its
own oldest would keep the flood under the cap, and nothing would be ended."""
BURST: int = 200
"""Messages in one burst before a Hello."""


def _junk() -> pb.BotPacket:
    return pb.BotPacket(messages=[pb.BotMessage(move=pb.MoveReply(
        game_id="g-0000000000000000", decision_id=1, legal_index=0))])


def _wrong_hello() -> pb.BotPacket:
    return pb.BotPacket(messages=[pb.BotMessage(hello=pb.Hello(
        protocol_version=pb.PROTOCOL_VERSION_1, token="x" * 24))])


async def flood(server: str, session: Session) -> None:
    """Open stream after stream on ``server`` once ``session`` has been welcomed (its own
    stream is then past Hello, so no cap ends it), forever."""
    while session.welcome is None:
        await asyncio.sleep(0.01)
    print(f"FLOOD started at {time.monotonic():.3f}", file=sys.stderr, flush=True)
    channels: deque[grpc.aio.Channel] = deque()
    kinds = ("silent",) * 8 + ("wrong token", "burst")
    opened = 0
    while True:
        channel = grpc.aio.insecure_channel(server, options=[("grpc.use_local_subchannel_pool", 1)])
        channels.append(channel)
        call = pb_grpc.RefereeStub(channel).Connect(None)
        kind = kinds[opened % len(kinds)]
        with contextlib.suppress(grpc.aio.AioRpcError, asyncio.InvalidStateError):
            if kind == "silent":
                await call.wait_for_connection()
            elif kind == "wrong token":
                await call.write(_wrong_hello())
            else:
                for _ in range(BURST):
                    await call.write(_junk())
        opened += 1
        if opened % 128 == 0:
            print(f"FLOOD opened {opened} at {time.monotonic():.3f}", file=sys.stderr,
                  flush=True)
        if len(channels) > OPEN:
            await channels.popleft().close(None)


async def main() -> int:
    options = Options.resolve(None, None, 5)
    session = Session(RandomBot())
    playing = asyncio.ensure_future(serve_session(session, options))
    flooding = asyncio.ensure_future(flood(options.server, session))
    await asyncio.wait([playing, flooding], return_when=asyncio.FIRST_COMPLETED)
    flooding.cancel()
    return playing.result() if playing.done() else 1


if __name__ == "__main__":
    os._exit(asyncio.run(main()))
