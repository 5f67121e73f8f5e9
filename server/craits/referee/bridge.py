"""The gRPC <-> trio bridge: grpc.aio runs on its own asyncio loop in a helper thread.

grpcio has no trio integration, so the referee keeps gRPC in one thread and the games in trio.
Of the bridges measured in DESIGN.md (trio as asyncio guest ~750 us/round trip, grpc.aio in a
helper thread ~640 us, sync server + ``from_thread`` ~650 us but far worse with 8 streams), the
helper thread is fastest, and with only non-blocking crossings it costs ~10 us each way:

- wire -> trio: every packet is handed over with ``TrioToken.run_sync_soon`` (fire and forget);
- trio -> wire: ``loop.call_soon_threadsafe(queue.put_nowait, message)``; the stream's writer
  drains everything queued into ONE packet, so decisions for many tables batch by themselves.

This is the only module that imports ``grpc``'s server API. Health and reflection are on.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Future
from typing import Any, Final

import grpc
import trio
from grpc_health.v1 import _async as health_async
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from craits.v1 import referee_pb2 as pb
from craits.v1 import referee_pb2_grpc as pb_grpc

from .hub import BotHub, Session

SERVICE_NAME: Final = pb.DESCRIPTOR.services_by_name["Referee"].full_name
_CLOSE: Final = object()
_MAX_STREAMS: Final = 1024


class _Stream:
    """One bot stream as both threads see it: the asyncio side's send/close, trio's session."""

    __slots__ = ("close", "send", "session")

    def __init__(self, send: Callable[[pb.RefereeMessage], None], close: Callable[[], None]):
        self.send = send
        self.close = close
        self.session: Session | None = None


class _Servicer(pb_grpc.RefereeServicer):
    def __init__(self, bridge: GrpcBridge) -> None:
        self._bridge = bridge

    async def Connect(  # type: ignore[override]
        self, request_iterator: AsyncIterator[pb.BotPacket], context: Any
    ) -> None:
        """Relay packets both ways until either side ends the stream."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Any] = asyncio.Queue()

        def send(msg: pb.RefereeMessage) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, msg)

        def close() -> None:
            loop.call_soon_threadsafe(queue.put_nowait, _CLOSE)

        stream = _Stream(send, close)
        bridge = self._bridge
        if not bridge.to_trio(bridge.open_stream, stream):
            return
        reader = asyncio.create_task(self._read(request_iterator, stream, queue))
        try:
            await self._write(queue, context)
        finally:
            reader.cancel()
            bridge.to_trio(bridge.close_stream, stream)

    async def _read(
        self, requests: AsyncIterator[pb.BotPacket], stream: _Stream, queue: asyncio.Queue[Any]
    ) -> None:
        bridge = self._bridge
        try:
            async for packet in requests:
                bridge.to_trio(bridge.packet, stream, packet)
        except (grpc.RpcError, asyncio.CancelledError):
            pass
        finally:
            queue.put_nowait(_CLOSE)

    @staticmethod
    async def _write(queue: asyncio.Queue[Any], context: Any) -> None:
        while True:
            item = await queue.get()
            if item is _CLOSE:
                return
            batch = [item]
            closing = False
            while not queue.empty():
                nxt = queue.get_nowait()
                if nxt is _CLOSE:
                    closing = True
                    break
                batch.append(nxt)
            await context.write(pb.RefereePacket(messages=batch))
            if closing:
                return


class GrpcBridge:
    """Owns the helper thread, its asyncio loop and the grpc.aio server, on behalf of a hub."""

    def __init__(self, hub: BotHub, host: str = "127.0.0.1", port: int = 0) -> None:
        self.hub = hub
        self.host = host
        self.requested_port = port
        self.port = 0
        self._token: trio.lowlevel.TrioToken | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: grpc.aio.Server | None = None

    # ------------------------------------------------------------ trio side
    async def start(self) -> int:
        """Start the thread and the server; returns the bound port. Call from trio."""
        self._token = trio.lowlevel.current_trio_token()
        loop = asyncio.new_event_loop()
        self._loop = loop
        self._thread = threading.Thread(target=loop.run_forever, name="craits-grpc", daemon=True)
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(self._serve(), loop)
        self.port = await trio.to_thread.run_sync(future.result)
        return self.port

    async def stop(self, grace_s: float = 1.0) -> None:
        """Stop the server (ending every stream) and the thread. Call from trio."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        future: Future[None] = asyncio.run_coroutine_threadsafe(self._shutdown(grace_s), loop)
        await trio.to_thread.run_sync(future.result)
        loop.call_soon_threadsafe(loop.stop)
        await trio.to_thread.run_sync(thread.join)
        loop.close()
        self._loop = self._thread = None

    def open_stream(self, stream: _Stream) -> None:
        """(trio) A stream opened."""
        stream.session = self.hub.on_open(stream.send, stream.close)

    def packet(self, stream: _Stream, packet: pb.BotPacket) -> None:
        """(trio) A packet arrived."""
        if stream.session is not None:
            self.hub.on_packet(stream.session, packet)

    def close_stream(self, stream: _Stream) -> None:
        """(trio) A stream ended."""
        if stream.session is not None:
            self.hub.on_close(stream.session)
            stream.session = None

    # ------------------------------------------------------------ asyncio side
    def to_trio(self, fn: Callable[..., None], *args: Any) -> bool:
        """Schedule ``fn(*args)`` in trio without waiting; False if trio is gone."""
        assert self._token is not None
        try:
            self._token.run_sync_soon(fn, *args)
        except trio.RunFinishedError:
            return False
        return True

    async def _serve(self) -> int:
        server = grpc.aio.server(
            maximum_concurrent_rpcs=_MAX_STREAMS,
            options=[("grpc.so_reuseport", 0), ("grpc.max_receive_message_length", 4 << 20)],
        )
        pb_grpc.add_RefereeServicer_to_server(_Servicer(self), server)
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

    async def _shutdown(self, grace_s: float) -> None:
        if self._server is not None:
            await self._server.stop(grace_s)
            self._server = None
