"""Reading a live game's Server-Sent Events stream as a raw client would (a contestant's
program, a spectator's script): every line as sent, the steps it carries, the game its
``end`` names."""

from __future__ import annotations

import json

import httpx


def read_events(client: httpx.Client, url: str, lines: list[str] | None = None
                ) -> tuple[int, list[dict[str, object]], int | None]:
    """A stream's status, its steps, and the game its ``end`` names; each raw line is added
    to ``lines`` as it arrives, when given. A stream that ends without an ``end`` fails."""
    steps: list[dict[str, object]] = []
    with client.stream("GET", url) as response:
        if response.status_code != 200:
            return response.status_code, steps, None
        assert response.headers["content-type"].startswith("text/event-stream")
        kind = ""
        for line in response.iter_lines():
            if lines is not None:
                lines.append(line)
            if line.startswith("event: "):
                kind = line.removeprefix("event: ")
            elif line.startswith("data: ") and kind == "steps":
                steps += json.loads(line.removeprefix("data: "))
            elif line.startswith("data: ") and kind == "end":
                return 200, steps, json.loads(line.removeprefix("data: "))["game"]
    raise AssertionError(f"{url}: the stream ended without an end")


def read_stream(url: str, into: list[str], steps: list[dict[str, object]],
                cookies: dict[str, str] | None = None) -> None:
    """Read a live game's stream to its end (a thread's target): raw text into ``into``,
    parsed steps into ``steps``."""
    with httpx.Client(timeout=60, cookies=cookies) as client:
        status, got, _ = read_events(client, url, into)
    assert status == 200, f"{url}: {status}"
    steps += got
