"""The referee service: the hub and the gRPC bridge, started and stopped together."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import trio

from .bridge import DEFAULT_HOST, GrpcBridge
from .hub import BotHub
from .listener import TlsFiles, is_loopback

PLAIN_TEXT_WARNING = (
    "craits: warning: listening on {address} beyond this machine WITHOUT TLS: anyone on the "
    "path can read the bots' tokens and moves and take a bot's seat; serve with --tls-cert and "
    "--tls-key (docs/security.md, \"The listener\")"
)


@dataclass(frozen=True, slots=True)
class Referee:
    """A running referee: where bots dial, and the hub that knows them."""

    hub: BotHub
    host: str
    port: int
    socket: Path | None = None
    """The Unix socket sandboxed bots dial (bound into each sandbox), when asked for."""

    tls: bool = False
    """Whether ``address`` speaks TLS."""

    @property
    def address(self) -> str:
        """``host:port`` for ``CRAITS_SERVER``."""
        return f"{self.host}:{self.port}"

    @property
    def local_address(self) -> str:
        """What the bots this referee launches dial: its Unix socket when the port speaks TLS
        (they have no CA to check it with, and the socket never leaves the machine), else
        ``address``."""
        if self.tls and self.socket is not None:
            return f"unix:{self.socket}"
        return self.address


@asynccontextmanager
async def open_referee(
    host: str = DEFAULT_HOST, port: int = 0, unix_socket: bool = False,
    tls: TlsFiles | None = None,
) -> AsyncIterator[Referee]:
    """Serve on ``host:port`` (port 0 picks a free one) for the duration of the block, and
    also on a Unix socket in a new private directory when ``unix_socket`` is set (for bots in
    sandboxes, which have no network).

    Raises ``bridge.ListenError`` (an ``OSError``) when it cannot listen there.

    ``tls``: serve ``host:port`` over TLS (the Unix socket stays plain: it never leaves the
    machine). Listening beyond this machine without it prints a warning on stderr.

    Needs an asyncio loop hosting this trio run: start the program with ``bridge.run``.
    """
    hub = BotHub()
    unix_socket = unix_socket or tls is not None  # for the bots it launches (local_address)
    private = Path(tempfile.mkdtemp(prefix="craits-")) if unix_socket else None
    socket = None if private is None else private / "referee.sock"
    bridge = GrpcBridge(hub, host, port, socket, tls)
    try:
        bound = await bridge.start()
        if tls is None and not is_loopback(host):
            print(PLAIN_TEXT_WARNING.format(address=f"{host}:{bound}"), file=sys.stderr,
                  flush=True)
        try:
            yield Referee(hub, host, bound, socket, tls is not None)
        finally:
            with trio.CancelScope(shield=True):
                await bridge.stop()
    finally:
        if private is not None:
            shutil.rmtree(private, ignore_errors=True)
