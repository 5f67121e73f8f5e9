"""A bot that reads the tournament's live pages while it plays, to learn a deal before it plays
that deal again (the attack on ``craits tournament run --web`` in a trusted run, where a bot
process has the network).

At each of its first ``LOOKS`` decisions of a game it reads, over HTTP on loopback, the list of
live games and every game's live page and stream (``/live``, ``/live/K``, ``/live/K/events``
for K = 0 .. ``GAMES`` - 1, whether listed or not: game keys are game numbers) and appends what
it got to ``seen.jsonl`` in its directory, one line per decision: its game's id and each path's
status and text (of a stream, its first event). The pages' address is in the file ``web_url``
there, written by the test once the pages are bound. Otherwise it plays the first legal move.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

from craits_sdk import Bot, MoveLike, View, run

LOOKS = 6
"""Decisions of each game at which it reads the pages (each read takes a few milliseconds)."""
GAMES = 2
"""The game numbers it tries (the test's tournament has two games)."""


def read(url: str) -> tuple[int, str]:
    """A page's status and text; a stream's status and first event (it is closed then)."""
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            if not response.headers.get("content-type", "").startswith("text/event-stream"):
                return response.status, response.read().decode()
            lines: list[str] = []
            for raw in response:
                line = raw.decode().rstrip("\r\n")
                if not line and any(part.startswith("data:") for part in lines):
                    break
                lines.append(line)
            return response.status, "\n".join(lines)
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


class Spy(Bot):
    def __init__(self) -> None:
        self.looks: Counter[str] = Counter()

    def decide(self, view: View) -> MoveLike:
        game = view.game.game_id
        if self.looks[game] < LOOKS:
            self.looks[game] += 1
            base = Path("web_url").read_text().strip()
            paths = ["/live"] + [f"/live/{k}{tail}" for k in range(GAMES)
                                 for tail in ("", "/events")]
            seen = {path: read(base + path) for path in paths}
            with Path("seen.jsonl").open("a") as out:
                out.write(json.dumps({"game": game, "seen": seen}) + "\n")
        return 0


if __name__ == "__main__":
    run(Spy())
