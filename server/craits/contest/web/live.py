"""Live games ("TV"): the games the ladder is playing now, each watched move by move.

``/live`` lists them; ``/live/KEY`` shows one game's public moves so far as plain HTML (it
reads without JavaScript: a ``<noscript>`` refresh), and its script follows
``/live/KEY/events``, a Server-Sent Events stream (sse-starlette: no hand-written framing) that
sends every public step from the first, then each new one as it is played (event ``steps``: a
JSON list of the steps not sent yet, so a reader joining midway catches up in one message),
then an explicit ``end`` naming the recorded game (whose page, ``/games/ID``, shows the whole
hands). A reconnecting ``EventSource`` sends the last step it
got (``Last-Event-ID``) and gets only the steps after it.

Everything here reads ``craits.contest.live``, which holds nothing but redacted public events:
what a spectator may see is decided there, not in a template.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from ..live import LiveGame, LiveGames


def live_games(request: Request) -> LiveGames:
    """The contest's live games (``Contest.live``)."""
    live: LiveGames = request.app.state.site.contest.live
    return live


def live_game(request: Request) -> LiveGame:
    """The game the path names, being played or lately ended; 404 otherwise."""
    key: str = request.path_params["key"]
    game = live_games(request).get(key)
    if game is None:
        raise HTTPException(404, f"no live game {key}: it may have ended; see the leaderboard")
    return game


def listing(live: LiveGames) -> list[dict[str, Any]]:
    """The games being played now, for the list page: key, seats, steps so far."""
    return [{"key": g.key, "seats": g.seats, "steps": len(g.steps)}
            for g in live.playing.values()]


async def live_events(request: Request) -> Response:
    """One game's public steps (event ``steps``, a list; id = the last one's index), then
    ``end``."""
    game = live_game(request)
    after = _last_event_id(request)

    async def events() -> AsyncIterator[ServerSentEvent]:
        async for batch in game.follow():
            if batch is None:
                yield ServerSentEvent(data=json.dumps({"game": game.game}), event="end")
                return
            fresh = [step.text for step in batch if step.index > after]
            if fresh:  # JSON texts made once per step (``Step.text``), joined as a list
                yield ServerSentEvent(data=f"[{','.join(fresh)}]", event="steps",
                                      id=str(batch[-1].index))

    return EventSourceResponse(events(), ping=15, headers={"Cache-Control": "no-store"})


def _last_event_id(request: Request) -> int:
    """The last step a reconnecting reader got (-1: none)."""
    value = request.headers.get("last-event-id", "")
    return int(value) if value.isdecimal() else -1
