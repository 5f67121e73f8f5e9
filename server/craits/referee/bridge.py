"""The gRPC <-> trio bridge: grpc.aio and the games share one thread (trio as asyncio's guest).

grpcio has no trio integration, so the referee runs trio as a guest of the asyncio loop that
grpc.aio needs (``host.run``). Both loops then live in one thread, and the bridge crosses
between them with plain calls, never a thread hand-off:

- wire -> games: the stream's reader calls the hub (``on_open``/``on_packet``/``on_close``)
  directly; a reply reaches its waiting game through trio's own rescheduling;
- games -> wire: ``send`` appends to the stream's pending list and, on the first message, wakes
  the stream's writer, which runs after the current trio pass and sends everything pending as
  ONE packet, so decisions for many tables batch by themselves.

DESIGN.md measured the alternatives (trio as guest ~750 us/round trip and grpc.aio in a helper
thread ~640 us with one stream; both ~3.3k round trips/s with 8); with the crossings reduced to
calls, the guest design is the faster one here (see ``docs/benchmarks.md``). This is the only
module that imports ``grpc``'s server API. Health and reflection are on.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, Final

import grpc
from grpc_health.v1 import _async as health_async
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from craits.v1 import referee_pb2 as pb
from craits.v1 import referee_pb2_grpc as pb_grpc

from .host import hosting_loop, wait_host
from .hub import BotHub, Session

SERVICE_NAME: Final = pb.DESCRIPTOR.services_by_name["Referee"].full_name
_MAX_STREAMS: Final = 1024


class _Stream:
    """One bot stream: the hub's session, and the messages waiting for the writer."""

    __slots__ = ("closing", "pending", "ready", "session")

    def __init__(self) -> None:
        self.pending: list[pb.RefereeMessage] = []
        self.ready = asyncio.Event()
        self.closing = False
        self.session: Session | None = None

    def send(self, msg: pb.RefereeMessage) -> None:
        """Queue a message; the writer sends all queued messages once the current pass ends."""
        self.pending.append(msg)
        self.ready.set()

    def close(self) -> None:
        """End the stream after what is already queued."""
        self.closing = True
        self.ready.set()


class _Servicer(pb_grpc.RefereeServicer):
    def __init__(self, hub: BotHub) -> None:
        self._hub = hub

    async def Connect(  # type: ignore[override]
        self, request_iterator: AsyncIterator[pb.BotPacket], context: Any
    ) -> None:
        """Relay packets both ways until either side ends the stream."""
        stream = _Stream()
        hub = self._hub
        stream.session = hub.on_open(stream.send, stream.close)
        reader = asyncio.create_task(self._read(request_iterator, stream))
        try:
            await self._write(stream, context)
        finally:
            reader.cancel()
            if stream.session is not None:
                hub.on_close(stream.session)
                stream.session = None

    async def _read(self, requests: AsyncIterator[pb.BotPacket], stream: _Stream) -> None:
        hub = self._hub
        try:
            async for packet in requests:
                if stream.session is None:
                    break
                hub.on_packet(stream.session, packet)
        except (grpc.RpcError, asyncio.CancelledError):
            pass
        finally:
            stream.close()

    @staticmethod
    async def _write(stream: _Stream, context: Any) -> None:
        """Write everything pending as one packet per wake-up; stop once closed and drained."""
        while True:
            await stream.ready.wait()
            stream.ready.clear()
            batch, stream.pending = stream.pending, []
            if batch:
                await context.write(pb.RefereePacket(messages=batch))
            if stream.closing and not stream.pending:
                return


class GrpcBridge:
    """The grpc.aio server on the hosting asyncio loop, on behalf of a hub."""

    def __init__(self, hub: BotHub, host: str = "127.0.0.1", port: int = 0) -> None:
        self.hub = hub
        self.host = host
        self.requested_port = port
        self.port = 0
        self._server: grpc.aio.Server | None = None

    async def start(self) -> int:
        """(trio) Start serving; returns the bound port."""
        hosting_loop()  # a clear error now rather than a confusing one later
        self.port = await wait_host(self._serve())
        return self.port

    async def stop(self, grace_s: float = 1.0) -> None:
        """(trio) Tell every bot goodbye, then stop the server (ending every stream)."""
        if self._server is None:
            return
        self.hub.close_all()
        server, self._server = self._server, None
        await wait_host(server.stop(grace_s))

    async def _serve(self) -> int:
        server = grpc.aio.server(
            maximum_concurrent_rpcs=_MAX_STREAMS,
            options=[("grpc.so_reuseport", 0), ("grpc.max_receive_message_length", 4 << 20)],
        )
        pb_grpc.add_RefereeServicer_to_server(_Servicer(self.hub), server)
        health = health_async.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health, server)
        reflection.enable_server_reflection(
            (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
             reflection.SERVICE_NAME),
            server,
        )
        port = server.add_insecure_port(f"{self.host}:{self.requested_port}")
        if port == 0:
            raise OSError(f"cannot listen on {self.host}:{self.requested_port}")
        await server.start()
        await health.set("", health_pb2.HealthCheckResponse.SERVING)
        await health.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
        self._server = server
        return port
