"""The leaderboard's changes as they happen, for any number of readers at the cost of one.

Why polling a snapshot, not a signal from the ladder: the board changes when a game is
recorded, a refit published, a version validated or suspended, by whichever task or process
does it; reading the board again is the one check that sees them all. Readers share the
snapshot: it is read (in a worker thread, off the event loop) at most once per ``interval``,
whoever asks first, so 200 open pages cost what one does. Each reader gets the whole board
when it changes (a full snapshot, not a delta: a reader that missed one loses nothing).
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Generic, TypeVar

import trio

T = TypeVar("T")


class Feed(Generic[T]):
    """A value read by ``read`` at most once per ``interval`` seconds, and its changes."""

    def __init__(self, read: Callable[[], T], interval: float,
                 offload: Callable[[Callable[[], T]], Awaitable[T]] = trio.to_thread.run_sync
                 ) -> None:
        """``offload`` runs a read off the event loop: a worker thread, or for a test on a
        virtual clock the read itself, inline (a thread lets that clock jump while it runs)."""
        self._read = read
        self._offload = offload
        self.interval = interval
        self._lock: trio.Lock | None = None
        self._read_at = -math.inf
        self._value: T | None = None
        self.revision = 0
        """How many times the value was seen to change (0: never read)."""

    async def current(self) -> tuple[int, T]:
        """The value and its revision, read again if the last read is ``interval`` old."""
        if self._lock is None:
            self._lock = trio.Lock()
        async with self._lock:
            if trio.current_time() - self._read_at >= self.interval:
                value = await self._offload(self._read)
                self._read_at = trio.current_time()
                if self.revision == 0 or value != self._value:
                    self._value = value
                    self.revision += 1
            current = self._value
        assert current is not None  # read at least once above
        return self.revision, current

    async def changes(self) -> AsyncIterator[tuple[int, T]]:
        """The value now, then each time it changes, with its revision (forever: the reader
        ends it). The revision lets readers share whatever they make of one value
        (``boardpage.py`` renders each once)."""
        seen = 0
        while True:
            revision, value = await self.current()
            if revision != seen:
                seen = revision
                yield revision, value
            await trio.sleep(self.interval)
