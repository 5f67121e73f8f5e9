"""Why a dial failed when the bot and the referee disagree about TLS, found by asking the port.

A plain dial to a referee that serves TLS fails with grpc's "Socket closed", and a TLS dial to a
plain referee with an SSL "WRONG_VERSION_NUMBER": neither names the cause, and a bot used to
re-dial for about 20 s before giving up with that alone. The error's wording is a hint, not
proof (a socket closes for many reasons), so after such a failure the loop asks the port itself,
once: a TLS handshake that completes (without checking the certificate: only the protocol is in
question) means the port speaks TLS; an HTTP/2 SETTINGS frame in answer to the HTTP/2 preface
means it speaks plain HTTP/2. Only then does the bot say which it is and what to set.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from typing import Final

PROBE_TIMEOUT_S: Final = 3.0
"""Time for one probe: a referee answers a handshake in milliseconds."""

_PREFACE: Final = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
"""The HTTP/2 client preface and an empty SETTINGS frame: what a plain gRPC client sends first."""
_SETTINGS: Final = 4
"""The frame type of SETTINGS, the first frame an HTTP/2 server sends."""


def host_port(address: str) -> tuple[str, int] | None:
    """``(host, port)`` of a ``host:port`` address (``[v6]:port`` too); None for others."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit() or host.startswith("unix:") or "/" in host:
        return None
    return host.removeprefix("[").removesuffix("]"), int(port)


async def speaks_tls(host: str, port: int, timeout: float = PROBE_TIMEOUT_S) -> bool:
    """Whether a TLS handshake with ``host:port`` completes (any certificate accepted)."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols(["h2"])  # a gRPC server may insist on it
    try:
        async with asyncio.timeout(timeout):
            _, writer = await asyncio.open_connection(host, port, ssl=context)
    except (OSError, TimeoutError, ssl.SSLError):
        return False
    await _close(writer)
    return True


async def speaks_plain_http2(host: str, port: int, timeout: float = PROBE_TIMEOUT_S) -> bool:
    """Whether ``host:port`` answers the HTTP/2 preface with a SETTINGS frame, in plain text."""
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await asyncio.open_connection(host, port)
            try:
                writer.write(_PREFACE)
                await writer.drain()
                header = await reader.readexactly(9)  # a frame header: length(3) type(1) ...
            finally:
                await _close(writer)
    except (OSError, TimeoutError, asyncio.IncompleteReadError):
        return False
    return header[3] == _SETTINGS


async def _close(writer: asyncio.StreamWriter) -> None:
    writer.close()
    with contextlib.suppress(OSError, ssl.SSLError, TimeoutError):
        async with asyncio.timeout(1.0):
            await writer.wait_closed()


async def mismatch(address: str, tls: bool, details: str) -> str | None:
    """What to tell the user when a dial to ``address`` (over TLS if ``tls``) failed with
    ``details`` because the referee speaks the other way; None when it did not, or when the
    port cannot tell.

    Only the failures such a mismatch produces are probed, so that a referee that is merely
    down costs no extra connection.
    """
    where = host_port(address)
    if where is None:
        return None
    if not tls and "Socket closed" in details and await speaks_tls(*where):
        return (f"the referee at {address} speaks TLS and this bot dialled in plain text: set "
                "CRAITS_TLS_CA to the PEM file of the CA that signed the referee's certificate "
                "(the organiser's `craits serve` prints it), or dial "
                f"CRAITS_SERVER=tls://{address} if a CA this system trusts signed it")
    if tls and _tls_failed(details) and await speaks_plain_http2(*where):
        return (f"the referee at {address} speaks plain text (no TLS) and this bot dialled over "
                f"TLS: unset CRAITS_TLS_CA and dial CRAITS_SERVER={address} (no tls:// or https://)")
    return None


def _tls_failed(details: str) -> bool:
    """Whether grpc's error is a TLS handshake that failed on what came back (not on a
    certificate, which is a different mistake with its own message)."""
    lowered = details.lower()
    return ("handshake" in lowered and "certificate_verify_failed" not in lowered) or (
        "wrong_version_number" in lowered)
