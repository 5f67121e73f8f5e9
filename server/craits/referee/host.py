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

While it runs, the cyclic garbage collector is tuned for a server that allocates many small,
short-lived, acyclic objects per decision (messages, moves, records): the objects alive at the
start are frozen out of collections, and a collection starts after 50,000 net allocations
instead of 700. Measured with the referee benchmark: +5-11% decisions/s and a lower p99 (e.g.
~1.0 ms instead of ~1.3 ms at one table); the previous settings come back when ``run`` returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, Final, TypeVar

import outcome
import trio

T = TypeVar("T")

_GC_THRESHOLDS: Final = (50_000, 20, 100)


def run(async_fn: Callable[..., Awaitable[T]], *args: Any) -> T:
    """``trio.run(async_fn, *args)``, hosted by a fresh asyncio event loop in this thread."""
    loop = asyncio.new_event_loop()
    try:
        with _server_gc():
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
