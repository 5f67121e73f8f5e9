"""The referee service: the hub and the gRPC bridge, started and stopped together."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import trio

from .bridge import DEFAULT_HOST, GrpcBridge
from .hub import BotHub


@dataclass(frozen=True, slots=True)
class Referee:
    """A running referee: where bots dial, and the hub that knows them."""

    hub: BotHub
    host: str
    port: int

    @property
    def address(self) -> str:
        """``host:port`` for ``CRAITS_SERVER``."""
        return f"{self.host}:{self.port}"


@asynccontextmanager
async def open_referee(host: str = DEFAULT_HOST, port: int = 0) -> AsyncIterator[Referee]:
    """Serve on ``host:port`` (port 0 picks a free one) for the duration of the block.

    Raises ``bridge.ListenError`` (an ``OSError``) when it cannot listen there.

    Needs an asyncio loop hosting this trio run: start the program with ``bridge.run``.
    """
    hub = BotHub()
    bridge = GrpcBridge(hub, host, port)
    bound = await bridge.start()
    try:
        yield Referee(hub, host, bound)
    finally:
        with trio.CancelScope(shield=True):
            await bridge.stop()
