"""The one way the sites answer with a Server-Sent Events stream (``event_stream``)."""

from __future__ import annotations

from collections.abc import AsyncIterable
from typing import Final

from sse_starlette import EventSourceResponse, ServerSentEvent

PING_S: Final = 15
"""Seconds between two comment lines on a stream that has sent nothing meanwhile."""


def event_stream(events: AsyncIterable[ServerSentEvent | bytes]) -> EventSourceResponse:
    """``events`` as a Server-Sent Events answer (sse-starlette's framing), every stream of the
    contest's and the tournament sites' pages alike (the board's, the front page's, a live
    game's, the TV's).

    Why a ping: a stream may say nothing for long (a board that does not change, a TV while no
    game is played, a live game between slow moves), and a proxy or load balancer in front of
    the site closes a connection idle for tens of seconds; a comment line every ``PING_S``,
    which a browser's ``EventSource`` ignores, keeps it open (sse-starlette's ping, "to keep the
    connection alive on proxies"). Why ``no-store``: what a stream carries is true only as it is
    sent, so no cache, the browser's or a shared one, may keep a copy to answer with later.
    Both are sse-starlette's defaults today; they are written here so that the streams do not
    change with a new version's defaults."""
    return EventSourceResponse(events, ping=PING_S, headers={"Cache-Control": "no-store"})
