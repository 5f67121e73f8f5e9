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
    """One bot stream as both threads see it.

    trio side: ``send``/``close`` only append to ``pending`` (no syscall, no GIL hand-off); the
    bridge's flusher task moves everything pending to the asyncio side in one crossing per
    scheduler pass, so messages for many tables leave as one packet. asyncio side: ``queue``.
    """

    __slots__ = ("bridge", "loop", "pending", "queue", "session")

    def __init__(self, bridge: GrpcBridge, loop: asyncio.AbstractEventLoop) -> None:
        self.bridge = bridge
        self.loop = loop
        self.queue: asyncio.Queue[list[Any]] = asyncio.Queue()
        self.pending: list[Any] = []
        self.session: Session | None = None

    def send(self, msg: pb.RefereeMessage) -> None:
        """(trio) Queue a message for the next flush."""
        if not self.pending:
            self.bridge.mark_dirty(self)
        self.pending.append(msg)

    def close(self) -> None:
        """(trio) End the stream after what is already queued."""
        self.send(_CLOSE)  # type: ignore[arg-type]

    def flush(self) -> None:
        """(trio) Hand everything pending to the asyncio side in one crossing."""
        batch, self.pending = self.pending, []
        if batch:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, batch)


class _Servicer(pb_grpc.RefereeServicer):
    def __init__(self, bridge: GrpcBridge) -> None:
        self._bridge = bridge

    async def Connect(  # type: ignore[override]
        self, request_iterator: AsyncIterator[pb.BotPacket], context: Any
    ) -> None:
        """Relay packets both ways until either side ends the stream."""
        stream = _Stream(self._bridge, asyncio.get_running_loop())
        bridge = self._bridge
        if not bridge.to_trio(bridge.open_stream, stream):
            return
        reader = asyncio.create_task(self._read(request_iterator, stream))
        try:
            await self._write(stream.queue, context)
        finally:
            reader.cancel()
            bridge.to_trio(bridge.close_stream, stream)

    async def _read(self, requests: AsyncIterator[pb.BotPacket], stream: _Stream) -> None:
        bridge = self._bridge
        try:
            async for packet in requests:
                bridge.to_trio(bridge.packet, stream, packet)
        except (grpc.RpcError, asyncio.CancelledError):
            pass
        finally:
            stream.queue.put_nowait([_CLOSE])

    @staticmethod
    async def _write(queue: asyncio.Queue[list[Any]], context: Any) -> None:
        """Write everything queued as one packet per wake-up; stop at the close marker."""
        while True:
            batch = list(await queue.get())
            while not queue.empty():
                batch += queue.get_nowait()
            cut = next((i for i, m in enumerate(batch) if m is _CLOSE), -1)
            closing = cut >= 0
            if closing:
                batch = batch[:cut]
            if batch:
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
        self._dirty: list[_Stream] = []
        self._wake = trio.Event()

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
        self.hub.close_all()
        dirty, self._dirty = self._dirty, []
        for stream in dirty:
            stream.flush()
        future: Future[None] = asyncio.run_coroutine_threadsafe(self._shutdown(grace_s), loop)
        await trio.to_thread.run_sync(future.result)
        loop.call_soon_threadsafe(loop.stop)
        await trio.to_thread.run_sync(thread.join)
        loop.close()
        self._loop = self._thread = None

    def mark_dirty(self, stream: _Stream) -> None:
        """(trio) ``stream`` has messages waiting: wake the flusher."""
        self._dirty.append(stream)
        self._wake.set()

    async def flush_forever(self) -> None:
        """(trio) Move pending messages to the wire once per scheduler pass, for every stream.

        The flusher is woken by the first message of a pass and runs after the tasks already
        runnable, so every table that answered in this pass shares the crossing.
        """
        while True:
            await self._wake.wait()
            self._wake = trio.Event()
            dirty, self._dirty = self._dirty, []
            for stream in dirty:
                stream.flush()

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
