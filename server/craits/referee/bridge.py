"""The gRPC <-> trio bridge: grpc.aio and the games share one thread, trio as asyncio's guest.

grpcio has no trio integration and grpc.aio needs an asyncio event loop, so ``run`` starts one in
this thread and runs the trio program as its guest (``trio.lowlevel.start_guest_run``). Every
command that opens a referee starts with ``bridge.run`` where it would call ``trio.run``; code
that never serves gRPC may keep ``trio.run``. Trio's own I/O waits happen in a worker thread only
while trio is idle and no bot's answer is due (below). Because both loops share the thread, the
bridge crosses between them with plain calls, never a thread hand-off:

- wire -> games: a stream's reader calls the hub (``on_open``/``on_packet``/``on_close``)
  directly; a reply reaches its waiting game through trio's own rescheduling;
- games -> wire: ``compose`` adds a message to the stream's next packet (the hub fills it in
  place: no copy) and wakes the stream's writer, which lets the current trio pass and one more
  pass of the loop end before it sends that packet, so decisions for many tables batch by
  themselves.

When no task is runnable, a trio guest waits in its I/O thread, and whatever wakes it (a reply
rescheduling its game) costs two thread hand-offs before the game runs: the guest's wake-up
socket wakes that thread, which then schedules the next trio pass on the host loop. A bot's
answer is usually back within a millisecond, so for ``POLL_S`` after each message sent to a bot,
``run``'s ``PollingClock`` tells trio there is no time to sleep: trio then takes a (cheap) pass on
every pass of the asyncio loop, and a reply arriving in that window wakes its game with no
hand-off. That is up to ``POLL_S`` of CPU per message while bots answer; a referee whose bots are
silent sleeps. Measured (``docs/benchmarks.md``): 0.71-0.74 -> 0.83-0.86 of the raw ping-pong at
eight tables and 0.41-0.47 -> 0.52-0.64 at one, a lower median latency, and no change in
tournaments of SDK bots.

Measured before the first version: with one stream, trio as guest took ~750 us a round trip and
grpc.aio in a helper thread ~640 us; with 8 streams both made ~3.3k round trips/s. The first
version of this module used the helper thread; with the crossings reduced to calls, the guest
design is ~15% faster at 8 tables (history in ``docs/architecture.md``, numbers in
``docs/benchmarks.md``).

Ctrl-C is delivered as ``KeyboardInterrupt`` at the next trio checkpoint of the main task
(``restrict_keyboard_interrupt_to_checkpoints``), so it never lands in the middle of the gRPC
machinery. While ``run`` runs, the cyclic garbage collector is tuned for a server that allocates
many small, short-lived, acyclic objects per decision (messages, moves, records): the objects
alive at the start are frozen out of collections, and a collection starts after 10,000 net
allocations instead of 700 (a threshold of 50,000 gave +5-11% decisions/s and a lower p99 against
700 in the referee benchmark; 10,000 measured as fast as 50,000, and a collection stops every
table for at most ~10 ms instead of 30); the previous settings come back when ``run`` returns.

This is the only module that imports ``grpc``'s server API. Health and reflection are on, with
a cap of their own (``SIDE_CALLS_MAX``, ``SideCallLimit``), so that calls needing no token can
never take the streams bots need. What the listener does against clients that hold resources
without playing (keepalive, handshake and Hello timeouts, TLS) is in ``listener.py`` and
``docs/security.md`` ("The listener").
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import gc
import logging
import math
import os
import random
import socket
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, Final, TypeVar

import grpc
import outcome
import trio
from google.protobuf.message import DecodeError
from grpc_health.v1 import _async as health_async
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from craits.v1 import referee_pb2 as pb
from craits.v1 import referee_pb2_grpc as pb_grpc

from . import listener
from .hub import BotHub, Session

SERVICE_NAME: Final = pb.DESCRIPTOR.services_by_name["Referee"].full_name
DEFAULT_HOST: Final = "127.0.0.1"
"""Where a referee listens unless told otherwise: this machine only, so no bot elsewhere can
dial a referee nobody asked to expose."""
_MAX_STREAMS: Final = 1024
"""Calls the server runs at once, of every service: grpc refuses more (``RESOURCE_EXHAUSTED``)."""
POLL_S: Final = 0.001
"""How long trio polls instead of sleeping after a message goes to a bot (``PollingClock``)."""
_GC_THRESHOLDS: Final = (10_000, 10, 10)
"""Only the youngest generation is collected less often (700 -> 10,000): the older ones keep
Python's defaults, so cyclic garbage that outlives a decision is still found at the usual pace."""
LOG: Final = logging.getLogger("craits.referee")
BOT_SOCKET_STREAMS: Final = 64
"""Calls one bot's own Unix socket runs at once (``GrpcBridge.open_bot_socket``): its
processes' streams (one each: a table's worth of slots), re-dials and some room; beyond,
grpc refuses them on that socket alone."""
MAX_UNSENT: Final = 10_000
"""Messages a stream may hold unsent (its bot not reading while they pile up) before the
referee ends it: a bot that stops reading must not grow the referee's memory without bound."""

T = TypeVar("T")


class PollingClock(trio.abc.Clock):
    """Trio's clock for ``run``: system time, except that trio polls rather than sleeps for a
    moment after a message goes to a bot (see the module doc).

    Like trio's own clock, the time is ``time.perf_counter()`` plus a large random offset (so
    code that mixes the two clocks fails at once). ``deadline_to_sleep_time`` is trio's question
    "how long may I sleep?", asked only when no task is runnable: until ``poll_s`` after the
    last ``poll_soon`` the answer is zero, so trio checks again on the host loop's next pass
    instead of waiting in its I/O thread. Deadlines are unaffected: trio compares them with
    ``current_time``.
    """

    __slots__ = ("_now", "_offset", "_poll_s", "_poll_until")

    def __init__(self, poll_s: float = POLL_S, now: Callable[[], float] = time.perf_counter
                 ) -> None:
        self._poll_s = poll_s
        self._now = now
        self._offset = random.uniform(10_000.0, 200_000.0)
        self._poll_until = -math.inf

    def poll_soon(self) -> None:
        """A bot was just sent a message: its answer may come within ``poll_s``."""
        self._poll_until = self._now() + self._poll_s

    def start_clock(self) -> None:
        """Nothing to start: the time is the system's."""

    def current_time(self) -> float:
        return self._offset + self._now()

    def deadline_to_sleep_time(self, deadline: float) -> float:
        now = self._now()
        if now < self._poll_until:
            return 0.0
        return deadline - (self._offset + now)


class _Stream:
    """One bot stream: the hub's session, and the packet the writer sends next."""

    __slots__ = ("clock", "closing", "packet", "ready", "session", "task")

    def __init__(self, clock: PollingClock | None) -> None:
        self.packet = pb.RefereePacket()
        self.ready = asyncio.Event()
        self.closing = False
        self.session: Session | None = None
        self.clock = clock
        self.task: asyncio.Task[Any] | None = None
        """The RPC's handler task, cancelled to end a stream whose bot stopped reading."""

    def compose(self) -> pb.RefereeMessage:
        """A new message at the end of the next packet, for the caller to fill in place; the
        writer sends the packet once the current trio pass and one more loop pass have ended
        (``_Servicer._write``)."""
        self.ready.set()
        if self.clock is not None:
            self.clock.poll_soon()
        messages = self.packet.messages
        if len(messages) >= MAX_UNSENT and self.task is not None:
            self._abandon()
        return messages.add()

    def _abandon(self) -> None:
        """End the RPC at once: its bot has left ``MAX_UNSENT`` messages unread."""
        LOG.warning("ending a bot's stream: %d messages are waiting for it to read", MAX_UNSENT)
        task, self.task = self.task, None
        if task is not None:
            task.cancel()

    def close(self) -> None:
        """End the stream after what is already queued."""
        self.closing = True
        self.ready.set()


class _Servicer(pb_grpc.RefereeServicer):
    def __init__(self, hub: BotHub, clock: PollingClock | None, bot_socket: str = "") -> None:
        """``bot_socket``: the name of the bot whose own Unix socket this servicer serves
        ("" for the port and the shared socket): its streams count against that bot."""
        self._hub = hub
        self._clock = clock
        self._bot_socket = bot_socket

    async def Connect(  # type: ignore[override]
        self, request_iterator: AsyncIterator[pb.BotPacket], context: Any
    ) -> None:
        """Relay packets both ways until either side ends the stream."""
        stream = _Stream(self._clock)
        stream.task = asyncio.current_task()
        hub = self._hub
        session = stream.session = hub.on_open(stream.compose, stream.close,
                                               listener.peer_host(context.peer()),
                                               self._bot_socket)
        reader = asyncio.create_task(self._read(request_iterator, stream))
        silent = asyncio.get_running_loop().call_later(
            listener.HELLO_TIMEOUT_S, hub.on_hello_timeout, session)
        try:
            await self._write(stream, context)
        finally:
            silent.cancel()
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
        except DecodeError as exc:  # the bot's fault: say so in band, no traceback
            LOG.info("a bot sent a malformed packet: %s", exc)
            if stream.session is not None:
                hub.on_malformed(stream.session, str(exc))
        except Exception:  # a referee bug must end this stream only, never the others
            LOG.exception("the referee failed on a packet; ending this bot's stream")
        finally:
            stream.close()

    @staticmethod
    async def _write(stream: _Stream, context: Any) -> None:
        """Write the pending packet once per wake-up; stop once closed and drained.

        Woken, the writer lets the loop take one more pass before it takes the packet: replies
        that arrived meanwhile wake their games in that pass, and the messages those games
        compose join the same packet (with trio polling, each reply is otherwise handled alone,
        and packets carried ~1.9 decisions instead of ~2.6: see ``docs/benchmarks.md``).
        """
        while True:
            await stream.ready.wait()
            await asyncio.sleep(0)
            stream.ready.clear()
            packet = stream.packet
            if packet.messages:
                stream.packet = pb.RefereePacket()
                await context.write(packet)
            if stream.closing and not stream.packet.messages:
                return


class GrpcBridge:
    """The grpc.aio server on the hosting asyncio loop, on behalf of a hub."""

    def __init__(
        self, hub: BotHub, host: str = DEFAULT_HOST, port: int = 0,
        unix_path: Path | None = None, tls: listener.TlsFiles | None = None,
    ) -> None:
        """``unix_path``: also serve on this Unix socket (its directory must exist), always
        in plain text (it never leaves the machine); ``tls``: serve ``host:port`` over TLS."""
        self.hub = hub
        self.tls = tls
        self.host = host
        self.unix_path = unix_path
        self.requested_port = port
        self.port = 0
        self._server: grpc.aio.Server | None = None
        self._polling: PollingClock | None = None
        """The run's clock, when ``run`` started it: the streams start its polls."""
        self._bot_servers: list[tuple[grpc.aio.Server, asyncio.Future[None]]] = []
        """Each bot's own socket's server, and its start."""

    def open_bot_socket(self, name: str, path: Path) -> None:
        """(trio, after ``start``) Serve the bot ``name`` alone on a Unix socket of its own at
        ``path`` (its directory must exist), in plain text.

        Every sandboxed bot used to reach the referee through one socket, where its streams
        were nobody's until Hello: a bot flooding it with silent streams ended other bots'
        streams before they could say Hello (the overall cap ends the oldest) and its wrong
        tokens counted against no one. On a socket of its own everything a bot does before
        Hello (streams, connections, wrong tokens, calls up to ``BOT_SOCKET_STREAMS``) is
        that bot's, and only that bot's tokens are taken there (``BotHub.on_open``).

        A server of its own (they share grpc's one completion queue, about 0.2 ms to make):
        grpc binds a port only before its server starts. It binds here, at once, so a bot
        launched next finds the socket; its connections wait in the backlog until the server
        has started on the hosting loop.
        """
        server = grpc.aio.server(
            maximum_concurrent_rpcs=BOT_SOCKET_STREAMS,
            options=[("grpc.so_reuseport", 0), ("grpc.max_receive_message_length", 4 << 20),
                     *listener.CHANNEL_OPTIONS],
        )
        pb_grpc.add_RefereeServicer_to_server(_Servicer(self.hub, self._polling, name), server)
        _bind_unix(server, path)
        os.chmod(path, 0o666)  # the bot's own user id must connect; see _serve
        started = asyncio.ensure_future(server.start(), loop=hosting_loop())
        self._bot_servers.append((server, started))

    async def start(self) -> int:
        """(trio) Start serving; returns the bound port (``ListenError`` if it cannot bind)."""
        hosting_loop()  # a clear error now rather than a confusing one later
        clock = trio.lowlevel.current_clock()
        self._polling = clock if isinstance(clock, PollingClock) else None
        self.port = await wait_host(self._serve())
        return self.port

    async def stop(self, grace_s: float = 1.0) -> None:
        """(trio) Tell every bot goodbye, then stop the server (ending every stream)."""
        if self._server is None:
            return
        self.hub.close_all()
        server, self._server = self._server, None
        bots, self._bot_servers = self._bot_servers, []
        await wait_host(_stop_all([(server, None), *bots], grace_s))

    async def _serve(self) -> int:
        listener.raise_file_limit()
        server = grpc.aio.server(
            maximum_concurrent_rpcs=_MAX_STREAMS,
            interceptors=[listener.SideCallLimit(SERVICE_NAME)],
            options=[("grpc.so_reuseport", 0), ("grpc.max_receive_message_length", 4 << 20),
                     *listener.CHANNEL_OPTIONS],
        )
        pb_grpc.add_RefereeServicer_to_server(_Servicer(self.hub, self._polling), server)
        health = health_async.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health, server)
        reflection.enable_server_reflection(
            (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
             reflection.SERVICE_NAME),
            server,
        )
        try:
            port = _bind(server, self.host, self.requested_port, self.tls)
            if self.unix_path is not None:
                _bind_unix(server, self.unix_path)
        except ListenError:
            await server.stop(None)  # else grpc cleans it up at exit, on a loop that is gone
            raise
        await server.start()
        if self.unix_path is not None:
            # Bots with user ids of their own must be able to connect; the socket's directory
            # is private, so only the sandboxes it is bound into can reach it.
            os.chmod(self.unix_path, 0o666)
        await health.set("", health_pb2.HealthCheckResponse.SERVING)
        await health.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
        self._server = server
        return port


async def _stop_all(servers: list[tuple[grpc.aio.Server, asyncio.Future[None] | None]],
                    grace_s: float) -> None:
    """(asyncio) Stop every server at once, each once it has started."""
    async def stop(server: grpc.aio.Server, started: asyncio.Future[None] | None) -> None:
        if started is not None:
            with contextlib.suppress(Exception):
                await started
        await server.stop(grace_s)

    await asyncio.gather(*(stop(server, started) for server, started in servers))


class ListenError(OSError):
    """The referee cannot listen where it was asked to (the port is taken, or the host is not an
    address of this machine); the message says where, for the command to show as it is, and
    ``option`` names the command-line option to change (``--port`` or ``--host``)."""

    def __init__(self, message: str, option: str = "--port") -> None:
        super().__init__(message)
        self.option = option


def _bind(server: grpc.aio.Server, host: str, wanted: int,
          tls: listener.TlsFiles | None = None) -> int:
    """Add the listening port; ``ListenError`` when it cannot be bound."""
    address = f"{host}:{wanted}"
    _probe(host, wanted, address)
    return _add_port(server, address, None if tls is None else tls.server_credentials())


UNIX_PATH_MAX: Final = 107
"""The most bytes a Unix socket's path may have on Linux (``sun_path`` is 108 with its NUL)."""


def _bind_unix(server: grpc.aio.Server, path: Path) -> None:
    """Listen on the Unix socket ``path``; ``ListenError`` saying why when it cannot. A path
    too long is told apart: grpcio refuses it with the same bare error as a taken address, and
    the referee makes its sockets under the temporary directory (``TMPDIR``), which a test
    runner or a cluster node may have made deep."""
    too_long = unix_path_too_long(path)
    if too_long is not None:
        raise ListenError(f"cannot listen on unix:{path}: {too_long}")
    _add_port(server, f"unix:{path}")


def unix_path_too_long(path: Path) -> str | None:
    """What is wrong with ``path`` as a Unix socket's (too many bytes, and what to do), or
    None when it fits."""
    size = len(os.fsencode(path))
    if size <= UNIX_PATH_MAX:
        return None
    return (f"its path has {size} bytes, more than the {UNIX_PATH_MAX} a Unix socket's may have "
            "(set TMPDIR to a shorter directory)")


def _add_port(server: grpc.aio.Server, address: str,
              credentials: grpc.ServerCredentials | None = None) -> int:
    """grpcio's ``add_insecure_port`` (or ``add_secure_port``), whose failure becomes a
    ``ListenError``.

    grpcio reports a failed bind by raising a bare ``RuntimeError`` (older versions returned 0),
    which says nothing a user can act on and is not an ``OSError``, so callers that handle
    network errors would miss it.
    """
    try:
        if credentials is None:
            port = server.add_insecure_port(address)
        else:
            port = server.add_secure_port(address, credentials)
    except RuntimeError:
        port = 0
    if port == 0:
        raise ListenError(f"cannot listen on {address}: address in use or not available")
    return port


def _probe(host: str, port: int, address: str) -> None:
    """Bind a plain socket where the server is to listen, and let it go: ``ListenError`` with
    the operating system's reason when that fails.

    grpcio logs a failed bind on the process's stderr as a line of its own (``E1130 ...
    add_port.cc:83] Failed to add port``) before raising, so asking it first would put that line
    above our one-line error; and its reason is lost in the exception. Only a port taken between
    this probe and grpcio's bind still reaches grpcio's path below.
    """
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        raise ListenError(f"cannot listen on {address}: unknown host ({exc})", "--host") from None
    family, kind, proto, _, where = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as servers bind
        try:
            probe.bind(where)
        except OSError as exc:
            option = "--port" if exc.errno in _PORT_ERRORS else "--host"
            raise ListenError(f"cannot listen on {address}: {exc.strerror}", option) from None


_PORT_ERRORS: Final = frozenset({errno.EADDRINUSE, errno.EACCES})
"""Bind errors that another port mends (taken; below 1024 without the right); the others (most
often ``EADDRNOTAVAIL``: not an address of this machine) are the host's."""


# ------------------------------------------------------------------ hosting trio on asyncio
def run(async_fn: Callable[..., Awaitable[T]], *args: Any) -> T:
    """``trio.run(async_fn, *args)``, hosted by a fresh asyncio event loop in this thread."""
    loop = asyncio.new_event_loop()
    try:
        with _server_gc(), _asyncgen_hooks_restored():
            done: asyncio.Future[outcome.Outcome[T]] = loop.create_future()
            trio.lowlevel.start_guest_run(
                async_fn, *args,
                run_sync_soon_threadsafe=loop.call_soon_threadsafe,
                run_sync_soon_not_threadsafe=loop.call_soon,
                done_callback=done.set_result,
                restrict_keyboard_interrupt_to_checkpoints=True,
                clock=PollingClock(),
            )
            result = loop.run_until_complete(done)
    finally:
        try:
            _cancel_left_tasks(loop)
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()
    return result.unwrap()


def _cancel_left_tasks(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel the asyncio tasks left on the host loop once the trio run is over, and let them
    end, as ``asyncio.run`` does: sse-starlette starts one per loop (its shutdown watcher, put
    on the running asyncio loop, which under a guest run is this one) that polls for ever, so
    every command that had served a Server-Sent Events stream (``--web`` pages) printed "Task
    was destroyed but it is pending!" when the loop was closed."""
    left = asyncio.all_tasks(loop)
    for task in left:
        task.cancel()
    if left:
        loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))


@contextlib.contextmanager
def _asyncgen_hooks_restored() -> Iterator[None]:
    """Put back this thread's async-generator hooks once the guest run is over.

    A trio guest run installs its own hooks and leaves them behind, so they kept the finished
    run alive, and with it its outcome: a failed run's traceback, and every object its frames
    held (a grpc server that could not bind, say), until the interpreter's exit, when destroying
    them printed a garbled "Error in sys.excepthook" after the command's own error.
    """
    old = sys.get_asyncgen_hooks()
    try:
        yield
    finally:
        sys.set_asyncgen_hooks(*old)


@contextlib.contextmanager
def _server_gc() -> Iterator[None]:
    """Freeze what is alive now and collect less often (see the module doc); then restore."""
    old = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(*_GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*old)
        gc.unfreeze()


def hosting_loop() -> asyncio.AbstractEventLoop:
    """The asyncio loop hosting this trio run; a clear error when trio was started by
    ``trio.run`` (the referee cannot serve gRPC without one)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        raise RuntimeError(
            "the referee serves gRPC on an asyncio loop, and this trio run has none: start the "
            "program with craits.referee.bridge.run(main) instead of trio.run(main)"
        ) from None


async def wait_host(work: Awaitable[T]) -> T:
    """(trio) Run an asyncio awaitable on the hosting loop and wait for its result.

    If the trio side is cancelled, the asyncio task is cancelled too (and waited for).
    """
    task = asyncio.ensure_future(work, loop=hosting_loop())
    finished = trio.Event()
    task.add_done_callback(lambda _: finished.set())
    try:
        await finished.wait()
    except BaseException:
        task.cancel()
        with trio.CancelScope(shield=True):
            await finished.wait()
        raise
    return task.result()
