"""An innocent bot whose client does not retry before its Welcome, as a contestant's own client
might: it opens its stream, takes ``PATIENCE_S`` to load (a model, tables) before it says Hello,
and if the stream ends before it is welcomed it says so on stderr (``INNOCENT ended before
Welcome``) and exits 1. Once welcomed it plays exactly like ``random`` (the SDK's session), so
its games can be compared with another run's. Run by the tournament as ``python3
patient_bot.py``, beside the tournament file (``test_socket_flood.py``)."""

from __future__ import annotations

import asyncio
import sys
import time

from craits.v1 import referee_pb2 as pb
from craits.v1 import referee_pb2_grpc as pb_grpc
from craits_bots.random import RandomBot
from craits_sdk.client import Options
from craits_sdk.session import Session

PATIENCE_S = 2.0
"""Between opening the stream and saying Hello (the referee waits 10 s for a Hello)."""


async def main() -> int:
    options = Options.resolve(None, None, 1)
    session = Session(RandomBot())
    try:
        async with options.channel() as channel:
            call = pb_grpc.RefereeStub(channel).Connect(None)
            await call.wait_for_connection()
            print(f"INNOCENT opened its stream at {time.monotonic():.3f}", file=sys.stderr,
                  flush=True)
            await asyncio.sleep(PATIENCE_S)
            print(f"INNOCENT says Hello at {time.monotonic():.3f}", file=sys.stderr, flush=True)
            await call.write(session.hello(options.token))
            while isinstance(packet := await call.read(), pb.RefereePacket):  # else EOF
                replies = session.handle(packet)
                if replies:
                    await call.write(pb.BotPacket(messages=replies))
    except Exception as exc:  # the stream ended: how, and whether it had been welcomed
        if not session.ever_welcomed:
            print(f"INNOCENT ended before Welcome: {type(exc).__name__}: {exc}",
                  file=sys.stderr, flush=True)
            return 1
        return 0
    return 0 if session.ever_welcomed else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
