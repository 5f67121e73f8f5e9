"""Running trio code that serves gRPC: trio as a guest of the asyncio loop that grpc.aio needs.

grpcio has no trio integration; grpc.aio needs an asyncio event loop. ``run`` starts one in this
thread and runs the trio program as its guest (``trio.lowlevel.start_guest_run``): both loops
share the thread, so the gRPC bridge hands packets to the games and messages back to the wire
with plain function calls: no thread crossing and no GIL hand-off per message. Trio's own I/O
waits happen in a worker thread only while trio is idle. Measured against a helper thread for
asyncio: see ``docs/architecture.md`` and ``docs/benchmarks.md``.

Use ``run`` wherever ``trio.run`` would start code that opens a referee; code that never serves
gRPC may keep ``trio.run``. Ctrl-C is delivered as ``KeyboardInterrupt`` at the next trio
checkpoint of the main task (``restrict_keyboard_interrupt_to_checkpoints``), so it never lands
in the middle of the gRPC machinery.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import outcome
import trio

T = TypeVar("T")


def run(async_fn: Callable[..., Awaitable[T]], *args: Any) -> T:
    """``trio.run(async_fn, *args)``, hosted by a fresh asyncio event loop in this thread."""
    loop = asyncio.new_event_loop()
    try:
        done: asyncio.Future[outcome.Outcome[T]] = loop.create_future()
        trio.lowlevel.start_guest_run(
            async_fn, *args,
            run_sync_soon_threadsafe=loop.call_soon_threadsafe,
            run_sync_soon_not_threadsafe=loop.call_soon,
            done_callback=done.set_result,
            restrict_keyboard_interrupt_to_checkpoints=True,
        )
        result = loop.run_until_complete(done)
    finally:
        try:
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()
    return result.unwrap()


def hosting_loop() -> asyncio.AbstractEventLoop:
    """The asyncio loop hosting this trio run; a clear error when trio was started by
    ``trio.run`` (the referee cannot serve gRPC without one)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        raise RuntimeError(
            "the referee serves gRPC on an asyncio loop, and this trio run has none: start the "
            "program with craits.referee.host.run(main) instead of trio.run(main)"
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
