"""Live-game watchers for ``contest_web_bench.py`` on raw sockets: what a spectator's browser
asks of the server, at a small fraction of a Python HTTP client's CPU.

Each watcher holds one keep-alive HTTP/1.1 connection, as a browser tab does: ``GET /live``,
then the stream of the newest game listed (``/live/KEY/events``) to its terminal chunk, then
again; or, as the TV page does, one stream (``/tv/events``) that goes from game to game. All of
them run in one thread on one ``selectors`` loop. A response is read just far enough to know
where it ends (``Content-Length`` or chunked framing) and what the bench counts: the keys in the
list, each ``steps`` message and its steps, the ``end`` event's game. Nothing else is parsed:
the bench measures the server, and on this machine the readers share its two cores, so whatever
CPU the load generator burns is taken from the games (the Python watchers on trio and httpx took
17-19% of a core at 50 watchers). ``wrk`` plays the same part for the pollers.

The server's side is unchanged: the same requests, headers, connections and streams.
"""

from __future__ import annotations

import json
import random
import re
import selectors
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

_LIVE = re.compile(rb'href="/live/([^"]+)"')
_END = re.compile(rb"event: end\r?\ndata: (\{[^\r\n]*\})")


@dataclass
class Counts:
    """What the watchers saw (the bench's ``Tally`` adds the pollers' figures)."""

    list_ms: list[float] = field(default_factory=list)
    ends: list[tuple[int, float]] = field(default_factory=list)
    streams: int = 0
    messages: int = 0
    steps: int = 0
    errors: int = 0


class _Response:
    """One response read incrementally: its head, then its body by length or by chunks;
    ``on_chunk`` gets each whole chunk's data (a Server-Sent Event is one chunk)."""

    def __init__(self, on_chunk: Callable[[bytes], None] | None = None) -> None:
        self.buffer = bytearray()
        self.status = 0
        self.length: int | None = None
        self.chunked = False
        self.close = False
        self.body = bytearray()
        self.done = False
        self._head = False
        self._on_chunk = on_chunk

    def feed(self, data: bytes) -> None:
        self.buffer += data
        if not self._head:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(self.buffer[:end]).decode("latin-1").split("\r\n")
            del self.buffer[:end + 4]
            self.status = int(head[0].split()[1])
            for line in head[1:]:
                name, _, value = line.partition(":")
                name, value = name.strip().lower(), value.strip().lower()
                if name == "content-length":
                    self.length = int(value)
                elif name == "transfer-encoding":
                    self.chunked = "chunked" in value
                elif name == "connection":
                    self.close = value == "close"
            self._head = True
        if self.chunked:
            self._chunks()
        elif self.length is not None and len(self.buffer) >= self.length:
            self.body = self.buffer[:self.length]
            self.done = True

    def _chunks(self) -> None:
        while not self.done:
            line_end = self.buffer.find(b"\r\n")
            if line_end < 0:
                return
            size = int(bytes(self.buffer[:line_end]).split(b";")[0], 16)
            if len(self.buffer) < line_end + 2 + size + 2:
                return
            data = bytes(self.buffer[line_end + 2:line_end + 2 + size])
            del self.buffer[:line_end + 2 + size + 2]
            if size == 0:
                self.done = True
            elif self._on_chunk is not None:
                self._on_chunk(data)


class _Watcher:
    """One spectator (module doc): list, stream, again, over one connection."""

    def __init__(self, loop: WatcherLoop) -> None:
        self.loop = loop
        self.sock: socket.socket | None = None
        self.response: _Response | None = None
        self.path = "/live"
        self.sent_at = 0.0
        self.wake_at = loop.now() + random.random()

    def connect(self) -> None:
        sock = socket.create_connection(self.loop.address)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setblocking(False)
        self.sock = sock
        self.loop.selector.register(sock, selectors.EVENT_READ, self)

    def drop(self) -> None:
        if self.sock is not None:
            self.loop.selector.unregister(self.sock)
            self.sock.close()
            self.sock = None

    def ask(self, path: str, on_chunk: Callable[[bytes], None] | None = None) -> None:
        if self.sock is None:
            self.connect()
        assert self.sock is not None
        self.response = _Response(on_chunk)
        self.sent_at = time.perf_counter()
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {self.loop.host}\r\n"
                          f"Accept: */*\r\n\r\n".encode())

    def start(self) -> None:
        """The next game: the live list first; or the TV's stream, which goes on from game
        to game."""
        self.path = "/tv/events" if self.loop.tv else "/live"
        try:
            self.ask(self.path, self.event if self.loop.tv else None)
        except OSError:
            self.failed()

    def failed(self) -> None:
        self.loop.counts.errors += 1
        self.drop()
        self.response = None
        self.wake_at = self.loop.now() + 0.5

    def readable(self) -> None:
        assert self.sock is not None and self.response is not None
        try:
            data = self.sock.recv(262144)
        except BlockingIOError:
            return
        except OSError:
            self.failed()
            return
        if not data:
            self.failed()
            return
        response = self.response
        response.feed(data)
        if not response.done:
            return
        if response.close:
            self.drop()
        self.response = None
        if response.status != 200:
            self.failed()
        elif self.path == "/live":
            self.listed(response)
        elif self.loop.tv:  # the TV's stream ended: the server is stopping
            self.failed()
        else:
            self.wake_at = self.loop.now() + random.uniform(0, self.loop.pause_s)

    def listed(self, response: _Response) -> None:
        counts = self.loop.counts
        counts.list_ms.append(1000 * (time.perf_counter() - self.sent_at))
        keys = _LIVE.findall(response.body)
        if not keys:
            self.wake_at = self.loop.now() + 0.2
            return
        counts.streams += 1
        self.path = f"/live/{keys[-1].decode()}/events"
        try:
            self.ask(self.path, self.event)
        except OSError:
            self.failed()

    def event(self, data: bytes) -> None:
        counts = self.loop.counts
        head = data[:80]  # the event's fields before its data (an id first)
        if b"event: steps" in head:
            counts.messages += 1
            counts.steps += data.count(b'"i": ')
        elif b"event: game" in head:  # the TV: the next game's first message
            counts.streams += 1
        elif b"event: end" in head:
            found = _END.search(data)
            game = json.loads(found.group(1)).get("game") if found else None
            if isinstance(game, int):
                counts.ends.append((game, time.time()))


class WatcherLoop:
    """``watchers`` spectators of ``url`` on one selector, for ``seconds``; with ``tv``, each
    follows ``/tv/events`` (``streams`` then counts the games it was sent). What they see
    goes to ``counts`` (a fresh ``Counts`` if none is given)."""

    def __init__(self, url: str, watchers: int, pause_s: float, tv: bool = False,
                 counts: Counts | None = None) -> None:
        parts = urlsplit(url)
        self.host = parts.netloc
        self.address = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.pause_s = pause_s
        self.tv = tv
        self.counts = Counts() if counts is None else counts
        self.selector = selectors.DefaultSelector()
        self.watchers = [_Watcher(self) for _ in range(watchers)]

    @staticmethod
    def now() -> float:
        return time.monotonic()

    def run(self, seconds: float) -> Counts:
        until = self.now() + seconds
        while (now := self.now()) < until:
            for watcher in self.watchers:
                if watcher.response is None and watcher.wake_at <= now:
                    watcher.wake_at = float("inf")
                    watcher.start()
            soonest = min((w.wake_at for w in self.watchers), default=until)
            timeout = max(0.0, min(soonest, until) - now)
            for key, _ in self.selector.select(timeout):
                key.data.readable()
        for watcher in self.watchers:
            watcher.drop()
        return self.counts
