"""The pipe's connection loop: one grpc.aio stream, re-dialled with backoff when it drops.

The same contract as the SDK's client (``craits_sdk.client``), whose options and exit statuses
it reuses: a pipe bot and a Python bot behave alike under a referee. It differs in one way: the
stream's reader never waits for a child, and a separate writer task sends whatever replies are
ready, so that many games' children can think at once.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Final

import grpc
import grpc.aio

from craits.v1 import referee_pb2 as pb
from craits.v1 import referee_pb2_grpc
from craits_sdk import (
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_REFUSED,
    EXIT_UNREACHABLE,
    Options,
    RefereeError,
)

from .game import LOG
from .session import PipeSession

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


class _Stop(Exception):
    """End the process with this exit status."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


async def serve(session: PipeSession, options: Options) -> int:
    """Play every game the referee starts until it ends the stream; return the exit status."""
    failures = 0
    while True:
        try:
            reason = await _connect_once(session, options)
        except _Stop as stop:
            return stop.status
        failures = 1 if session.welcome is not None else failures + 1
        if failures > options.attempts:
            LOG.error("the referee at %s is gone (%s); gave up after %d attempts",
                      options.server, reason, options.attempts)
            return EXIT_UNREACHABLE
        delay = min(options.max_backoff_s, options.backoff_s * 2 ** (failures - 1))
        LOG.warning("connection to %s lost (%s); reconnecting in %.1f s",
                    options.server, reason, delay)
        await asyncio.sleep(delay)


async def _connect_once(session: PipeSession, options: Options) -> str:
    """Run one stream; return why it dropped, or raise ``_Stop`` when the process should end."""
    try:
        async with grpc.aio.insecure_channel(options.server) as channel:
            call = referee_pb2_grpc.RefereeStub(channel).Connect(None)
            await call.write(session.hello(options.token))
            writer = asyncio.create_task(_write(call, session.outbox))
            try:
                await _read(call, session)
            finally:
                writer.cancel()
                await asyncio.gather(writer, return_exceptions=True)
    except RefereeError as err:
        return _on_referee_error(session, err)
    except grpc.aio.AioRpcError as err:
        status = _FATAL_STATUS.get(err.code())
        if status is not None:
            LOG.error("the server at %s refused the stream: %s", options.server, err.details())
            raise _Stop(status) from None
        return f"{err.code().name}: {err.details()}"
    LOG.info("the referee closed the stream")
    raise _Stop(EXIT_OK)


def _on_referee_error(session: PipeSession, err: RefereeError) -> str:
    """A fatal ``Error``: stop (a shutdown is the normal end), except a token refused on a
    re-dial, which is retried: the referee may still hold this bot's previous, dead stream."""
    if err.code == pb.ERROR_CODE_BAD_TOKEN and session.ever_welcomed:
        return f"token refused on reconnect: {err.message}"
    status = _ERROR_EXIT.get(err.code, EXIT_FAILURE)
    log = LOG.info if status == EXIT_OK else LOG.error
    log("the referee ended the connection: %s", err)
    raise _Stop(status)


async def _read(call: grpc.aio.StreamStreamCall[pb.BotPacket, pb.RefereePacket],
                session: PipeSession) -> None:
    """Route packets until the referee ends the stream cleanly."""
    while True:
        packet = await call.read()
        if not isinstance(packet, pb.RefereePacket):
            return  # grpc.aio.EOF: the referee finished the stream with status OK
        session.handle(packet)


async def _write(call: grpc.aio.StreamStreamCall[pb.BotPacket, pb.RefereePacket],
                 outbox: asyncio.Queue[pb.BotMessage]) -> None:
    """Send every reply that is ready as one packet; a failed write ends the stream."""
    try:
        while True:
            batch = [await outbox.get()]
            while not outbox.empty():
                batch.append(outbox.get_nowait())
            await call.write(pb.BotPacket(messages=batch))
    except (grpc.aio.AioRpcError, asyncio.InvalidStateError) as exc:
        LOG.warning("could not send replies (%s); the stream will be re-dialled", exc)
        with contextlib.suppress(Exception):
            call.cancel()
