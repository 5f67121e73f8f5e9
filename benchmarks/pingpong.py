"""Raw grpc.aio ping-pong over loopback: the ceiling the referee is measured against.

Server: ``python benchmarks/pingpong.py serve PORT_FILE`` (asyncio, no trio), echoing a fixed
reply of the given size on the same ``Referee.Connect`` bidirectional stream the real referee
uses. Client: ``python benchmarks/pingpong.py client ADDR STREAMS SECONDS SIZE`` prints one JSON
line with round trips per second and latency percentiles. Both sides are separate processes, as
the referee and its bots are.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import AsyncIterator

import grpc

from craits.v1 import referee_pb2 as pb
from craits.v1 import referee_pb2_grpc as pb_grpc


class Echo(pb_grpc.RefereeServicer):
    """Answers every bot packet with one referee packet of ``size`` bytes of payload."""

    def __init__(self, size: int) -> None:
        self.reply = pb.RefereePacket(
            messages=[pb.RefereeMessage(update=pb.GameUpdate(game_id="x" * size))]
        )

    async def Connect(
        self,
        request_iterator: AsyncIterator[pb.BotPacket],
        context: grpc.aio.ServicerContext[pb.BotPacket, pb.RefereePacket],
    ) -> AsyncIterator[pb.RefereePacket]:
        async for _ in request_iterator:
            yield self.reply


async def serve(port_file: str, size: int) -> None:
    server = grpc.aio.server()
    pb_grpc.add_RefereeServicer_to_server(Echo(size), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    with open(port_file, "w") as f:
        f.write(str(port))
    await server.wait_for_termination()


async def _one_stream(
    stub: pb_grpc.RefereeAsyncStub, deadline: float, size: int, lat: list[float]
) -> int:
    request = pb.BotPacket(messages=[pb.BotMessage(
        move=pb.MoveReply(game_id="g" * max(1, size // 10), decision_id=1, legal_index=0)
    )])
    call = stub.Connect(None)
    n = 0
    while time.perf_counter() < deadline:
        t = time.perf_counter()
        await call.write(request)
        await call.read()
        lat.append(time.perf_counter() - t)
        n += 1
    await call.done_writing()
    return n


async def client(address: str, streams: int, seconds: float, size: int) -> dict[str, float]:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = pb_grpc.RefereeStub(channel)
        lat: list[float] = []
        deadline = time.perf_counter() + seconds
        streams_done = (_one_stream(stub, deadline, size, lat) for _ in range(streams))
        counts = await asyncio.gather(*streams_done)
    lat.sort()
    return {
        "round_trips_per_s": sum(counts) / seconds,
        "p50_us": lat[len(lat) // 2] * 1e6,
        "p99_us": lat[int(len(lat) * 0.99)] * 1e6,
    }


def main() -> None:
    if sys.argv[1] == "serve":
        asyncio.run(serve(sys.argv[2], int(sys.argv[3])))
    else:
        address, streams, seconds, size = sys.argv[2:6]
        result = asyncio.run(client(address, int(streams), float(seconds), int(size)))
        print(json.dumps(result))


if __name__ == "__main__":
    main()
