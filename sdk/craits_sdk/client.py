"""The connection loop: one grpc.aio stream to the referee, re-dialled with backoff when it drops.

Decisions are answered in the order they arrive and all answers to one packet go back in one
packet: a gRPC hop costs far more than a decision, so batching is the cheap way to be fast. The
loop ends only on a fatal ``Error`` from the referee, on an RPC status that retrying cannot fix,
or when the referee stays unreachable for ``attempts`` dials in a row; ``serve`` returns the exit
status the process should end with (the ``EXIT_*`` constants).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Final

import grpc
import grpc.aio

from craits.v1 import referee_pb2 as pb
from craits.v1 import referee_pb2_grpc

from .bot import Bot
from .session import LOG, RefereeError, Session

EXIT_OK: Final = 0
"""The referee shut down cleanly."""
EXIT_FAILURE: Final = 1
"""A protocol error, or a server that is not a Craits referee."""
EXIT_REFUSED: Final = 2
"""The referee refused this bot: bad token or unsupported protocol version (or a usage error)."""
EXIT_UNREACHABLE: Final = 3
"""The referee could not be reached, or stayed away after the stream dropped."""

_FATAL_STATUS: Final = {
    grpc.StatusCode.UNAUTHENTICATED: EXIT_REFUSED,
    grpc.StatusCode.PERMISSION_DENIED: EXIT_REFUSED,
    grpc.StatusCode.UNIMPLEMENTED: EXIT_FAILURE,
}
"""RPC statuses that another dial would only repeat."""

_ERROR_EXIT: Final = {
    pb.ERROR_CODE_BAD_TOKEN: EXIT_REFUSED,
    pb.ERROR_CODE_UNSUPPORTED_VERSION: EXIT_REFUSED,
    pb.ERROR_CODE_SHUTDOWN: EXIT_OK,
}


@dataclass(frozen=True, slots=True)
class Options:
    """Where to connect and how hard to try."""

    server: str
    """The referee's ``host:port``."""
    token: str
    """The token the referee issued for this bot."""
    attempts: int = 8
    """Re-dials after a failed or dropped connection before giving up (restarts at each Welcome)."""
    backoff_s: float = 0.2
    """Wait before the first re-dial; doubles after each failed one."""
    max_backoff_s: float = 5.0


class _Fatal(Exception):
    """Stop now with this exit status."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


async def serve(bot: Bot, options: Options) -> int:
    """Play for ``bot`` until the referee ends it; return the process exit status."""
    session = Session(bot)
    failures = 0
    while True:
        try:
            reason = await _connect_once(session, options)
        except _Fatal as fatal:
            return fatal.status
        lost = session.welcome is not None
        if lost:
            failures = 0
        failures += 1
        if failures > options.attempts:
            LOG.error(
                "the referee at %s is gone (%s); gave up after %d failed dials in a row",
                options.server, reason, failures,
            )
            return EXIT_UNREACHABLE
        delay = min(options.max_backoff_s, options.backoff_s * 2 ** (failures - 1))
        LOG.warning(
            "%s %s (%s); re-dialling in %.1f s (%d of %d)",
            "lost the connection to" if lost else "cannot reach the referee at",
            options.server, reason, delay, failures, options.attempts,
        )
        await asyncio.sleep(delay)


async def _connect_once(session: Session, options: Options) -> str:
    """Run one connection to its end; return why it ended, or raise ``_Fatal``."""
    try:
        async with grpc.aio.insecure_channel(options.server) as channel:
            await _play(session, referee_pb2_grpc.RefereeStub(channel), options.token)
        return "the referee closed the stream"
    except RefereeError as err:
        return _on_referee_error(session, err)
    except grpc.aio.AioRpcError as err:
        status = _FATAL_STATUS.get(err.code())
        if status is not None:
            LOG.error("the server at %s refused the stream: %s", options.server, err.details())
            raise _Fatal(status) from None
        return f"{err.code().name}: {err.details()}"
    except asyncio.InvalidStateError:
        return "the stream ended while the bot was answering"


async def _play(session: Session, stub: referee_pb2_grpc.RefereeAsyncStub, token: str) -> None:
    """Say hello, then answer packets until the stream ends."""
    call = stub.Connect(None)
    await call.write(session.hello(token))
    while True:
        packet = await call.read()
        if not isinstance(packet, pb.RefereePacket):
            return  # end of stream
        replies = session.handle(packet)
        if replies:
            await call.write(pb.BotPacket(messages=replies))


def _on_referee_error(session: Session, err: RefereeError) -> str:
    """Decide what a fatal ``Error`` means for this process.

    A bad token on a re-dial is retried: the referee may not yet have noticed that this bot's
    previous stream is dead and still count the token as in use.
    """
    if err.code == pb.ERROR_CODE_BAD_TOKEN and session.ever_welcomed:
        return f"token refused on reconnect: {err.message}"
    status = _ERROR_EXIT.get(err.code, EXIT_FAILURE)
    log = LOG.info if status == EXIT_OK else LOG.error
    log("the referee ended the connection: %s", err)
    raise _Fatal(status)
