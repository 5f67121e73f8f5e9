"""The referee service: the hub and the gRPC bridge, started and stopped together."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import trio

from .bridge import DEFAULT_HOST, GrpcBridge
from .hub import BotHub


@dataclass(frozen=True, slots=True)
class Referee:
    """A running referee: where bots dial, and the hub that knows them."""

    hub: BotHub
    host: str
    port: int
    socket: Path | None = None
    """The Unix socket sandboxed bots dial (bound into each sandbox), when asked for."""

    @property
    def address(self) -> str:
        """``host:port`` for ``CRAITS_SERVER``."""
        return f"{self.host}:{self.port}"


@asynccontextmanager
async def open_referee(
    host: str = DEFAULT_HOST, port: int = 0, unix_socket: bool = False
) -> AsyncIterator[Referee]:
    """Serve on ``host:port`` (port 0 picks a free one) for the duration of the block, and
    also on a Unix socket in a new private directory when ``unix_socket`` is set (for bots in
    sandboxes, which have no network).

    Raises ``bridge.ListenError`` (an ``OSError``) when it cannot listen there.

    Needs an asyncio loop hosting this trio run: start the program with ``bridge.run``.
    """
    hub = BotHub()
    private = Path(tempfile.mkdtemp(prefix="craits-")) if unix_socket else None
    socket = None if private is None else private / "referee.sock"
    bridge = GrpcBridge(hub, host, port, socket)
    try:
        bound = await bridge.start()
        try:
            yield Referee(hub, host, bound, socket)
        finally:
            with trio.CancelScope(shield=True):
                await bridge.stop()
    finally:
        if private is not None:
            shutil.rmtree(private, ignore_errors=True)
