"""What the referee's listener does against clients that hold resources without playing.

The gRPC port may be reachable beyond this machine (``--host``), by anyone: before a bot shows
its token it is a stranger, so nothing a stranger can do may keep a real bot from connecting or
read what bots and the referee say. Each limit here has its number and its reason in
``docs/security.md`` ("The listener"); the hub keeps the ones about tokens and Hello
(``hub.py``), the bridge applies the rest.
"""

from __future__ import annotations

import contextlib
import inspect
import ipaddress
import resource
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import grpc

HELLO_TIMEOUT_S: Final = 10.0
"""A stream that has not said Hello this long after it opened is ended: a bot sends Hello at
once, and a stream that never does only holds one of the server's calls."""
SIDE_CALLS_MAX: Final = 32
"""Health and reflection calls open at once; more are refused (``RESOURCE_EXHAUSTED``). They
need no token, so without a cap of their own ~1,100 ``Health/Watch`` streams took every call
the server would run and no bot could connect (or come back after a drop)."""
KEEPALIVE_S: Final = 60
"""The server pings a connection silent this long, and closes it if the ping is not answered
within ``KEEPALIVE_TIMEOUT_S``: a bot whose machine vanished (a half-open connection) stops
holding its stream and a file descriptor."""
KEEPALIVE_TIMEOUT_S: Final = 20
IDLE_S: Final = 300
"""A connection with no call open this long is closed (a bot always has its stream open)."""
HANDSHAKE_S: Final = 10
"""A connection must finish its HTTP/2 (and TLS) handshake within this: sockets opened and left
silent are closed instead of holding a file descriptor for ever."""
CLIENT_PING_MIN_S: Final = 10
"""Clients may ping this often without sending data (bots' keepalive); faster pings end the
connection (grpc's ping-flood protection)."""

CHANNEL_OPTIONS: Final = (
    ("grpc.keepalive_time_ms", KEEPALIVE_S * 1000),
    ("grpc.keepalive_timeout_ms", KEEPALIVE_TIMEOUT_S * 1000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
    ("grpc.http2.min_ping_interval_without_data_ms", CLIENT_PING_MIN_S * 1000),
    ("grpc.max_connection_idle_ms", IDLE_S * 1000),
    ("grpc.server_handshake_timeout_ms", HANDSHAKE_S * 1000),
)
"""The server's channel arguments for the limits above."""


def peer_host(peer: str) -> str:
    """The address part of grpc's ``context.peer()`` (``ipv4:1.2.3.4:5``, ``ipv6:[::1]:5``);
    "" for the Unix socket, whose clients are the referee's own sandboxed bots."""
    kind, _, rest = peer.partition(":")
    if kind not in ("ipv4", "ipv6"):
        return ""
    return rest.rpartition(":")[0].strip("[]")


def is_loopback(host: str) -> bool:
    """Whether listening on ``host`` keeps the port on this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def raise_file_limit() -> None:
    """Raise this process's open-file limit to the most it may have: each connection holds a
    descriptor, and the usual soft limit (1,024) let ~1,500 idle connections lock bots out."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 16)
        with contextlib.suppress(ValueError, OSError):  # else it stays; the other limits hold
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


class TlsError(ValueError):
    """The certificate or key cannot be read."""


@dataclass(frozen=True, slots=True)
class TlsFiles:
    """A PEM certificate (chain) and its private key, for serving over TLS."""

    cert: Path
    key: Path
    ca: Path | None = None
    """The CA certificate bots are to trust (``--tls-ca``), when the organiser names it."""

    def bot_ca(self) -> Path | None:
        """The file a bot should name in ``CRAITS_TLS_CA``: ``ca`` when given, else ``cert``
        itself when it holds its own root (a self-signed certificate, or a chain that ends in
        its CA), else None: the CA that signed ``cert`` is somewhere this referee cannot know.

        ``cert`` alone is not offered otherwise: the SDK (gRPC's C core) accepts a leaf as a
        trust anchor but Node's TLS, and so the JavaScript bot, does not.
        """
        if self.ca is not None:
            return self.ca.absolute()
        return self.cert.absolute() if _holds_root(self._read(self.cert)) else None

    def server_credentials(self) -> grpc.ServerCredentials:
        """grpc's credentials for these files (``TlsError`` when one cannot be read)."""
        return grpc.ssl_server_credentials([(self._read(self.key), self._read(self.cert))])

    def check(self) -> None:
        """``TlsError`` now, rather than when the server starts, if a file cannot be used."""
        if b"PRIVATE KEY-----" not in self._read(self.key):
            raise TlsError(f"{self.key} is not a PEM private key")
        for pem in (self.cert, self.ca):
            if pem is not None and b"-----BEGIN CERTIFICATE-----" not in self._read(pem):
                raise TlsError(f"{pem} is not a PEM certificate")

    @staticmethod
    def _read(path: Path) -> bytes:
        try:
            return path.read_bytes()
        except OSError as exc:
            raise TlsError(f"cannot read {path}: {exc.strerror or exc}") from None


def _holds_root(pem: bytes) -> bool:
    """Whether these PEM certificates include a self-signed CA certificate (a root), which a
    bot can trust as it is."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    try:
        context.load_verify_locations(cadata=pem.decode("ascii", "replace"))
    except (ssl.SSLError, ValueError):
        return False
    return any(c.get("subject") == c.get("issuer") for c in context.get_ca_certs())


class SideCallLimit(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """Caps the calls open at once on every service but ``service`` (health, reflection) at
    ``SIDE_CALLS_MAX``; the bots' service is untouched."""

    def __init__(self, service: str, limit: int = SIDE_CALLS_MAX) -> None:
        self._prefix = f"/{service}/"
        self._limit = limit
        self.open = 0

    async def intercept_service(
        self, continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Any]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Any:
        handler = await continuation(handler_call_details)
        method: str = handler_call_details.method
        if handler is None or method.startswith(self._prefix):
            return handler
        return self._limited(handler)

    def _limited(self, handler: Any) -> Any:
        """``handler`` with each of its behaviours counted and refused beyond the limit."""
        fields = ("unary_unary", "unary_stream", "stream_unary", "stream_stream")
        wrapped = {name: self._wrap(getattr(handler, name)) for name in fields
                   if getattr(handler, name) is not None}
        return handler._replace(**wrapped)

    def _wrap(self, behaviour: Callable[..., Any]) -> Callable[..., Any]:
        if inspect.isasyncgenfunction(behaviour):
            async def streaming(request: Any, context: Any) -> AsyncIterator[Any]:
                await self._enter(context)
                try:
                    async for item in behaviour(request, context):
                        yield item
                finally:
                    self.open -= 1
            return streaming

        async def single(request: Any, context: Any) -> Any:
            await self._enter(context)
            try:
                result = behaviour(request, context)
                return await result if inspect.isawaitable(result) else result
            finally:
                self.open -= 1
        return single

    async def _enter(self, context: Any) -> None:
        if self.open >= self._limit:
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"more than {self._limit} health and reflection calls are open; try later")
        self.open += 1
