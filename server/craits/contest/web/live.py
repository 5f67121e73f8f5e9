"""Live games ("TV"): the games the ladder is playing now, each watched move by move.

``/live`` lists them; ``/live/KEY`` shows one game's public moves so far as plain HTML (it
reads without JavaScript: a ``<noscript>`` refresh), and its script follows
``/live/KEY/events``, a Server-Sent Events stream (sse-starlette: no hand-written framing) that
sends every public step from the first, then each new one as it is played (event ``steps``: a
JSON list of the steps not sent yet, so a reader joining midway catches up in one message),
then an explicit ``end`` naming the recorded game (whose page, ``/games/ID``, shows the whole
hands). A reconnecting ``EventSource`` sends the last step it
got (``Last-Event-ID``) and gets only the steps after it.

**The delay.** With ``[web] live_delay_s`` = D, a spectator is shown a step, and a game's end,
only once it is D seconds old (``Step.at``, ``LiveGame.ended_at``: when the service got them),
on every page and stream here alike: the list counts only the steps shown and keeps a game
listed until its end is shown; the page and the stream hold the rest back and send it when it
comes of age. The organiser's view (``organiser.py``) is not delayed.

A page made from ``live.html`` needs the site to serve ``/static`` (``assets.static_files``):
its script is ``live.js``, not inline.

Everything here reads ``craits.contest.live``, which holds nothing but redacted public events:
what a spectator may see is decided there, not in a template.
"""

from __future__ import annotations

import bisect
import json
import math
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, Final

import trio
from sse_starlette import ServerSentEvent
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from ..live import LiveGame, LiveGames, Step
from .sse import event_stream

PACE_S: Final = 0.25
"""At most one ``steps`` message per reader in this long (``paced``): a game of quick bots
makes hundreds of steps a second, each relayed on its own; sent one by one to every reader,
they were the pages' largest cost under load (``docs/benchmarks.md``). At 0.1 s the streams
of 50 watchers were still the web process's largest cost (a quarter of its time in a profile
at 200 pollers and 50 watchers: each message goes through the middlewares and h11); four
updates a second are as many as a person follows."""


def live_games(request: Request) -> LiveGames:
    """The contest's live games (``Contest.live``)."""
    live: LiveGames = request.app.state.site.contest.live
    return live


def live_delay(request: Request) -> float:
    """The site's delay for spectators (``app.state.live_delay_s``: the contest's ``[web]
    live_delay_s``); none on a site that sets none (a tournament's)."""
    delay: float = getattr(request.app.state, "live_delay_s", 0.0)
    return delay


def live_game(request: Request) -> LiveGame:
    """The game the path names, being played or lately ended; 404 otherwise."""
    key: str = request.path_params["key"]
    game = live_games(request).get(key)
    if game is None:
        raise HTTPException(404, f"no live game {key}: it may have ended; see the leaderboard")
    return game


@dataclass(frozen=True, slots=True)
class Shown:
    """A live game as a spectator is shown it now: the steps old enough, and the end once it
    is."""

    key: str
    seats: tuple[str, ...]
    steps: Sequence[Step]
    ended: bool
    game: int | None
    """The recorded game's id, once the end is shown."""


def shown(game: LiveGame, delay: float, now: float) -> Shown:
    """What of ``game`` a spectator sees at ``now`` with ``delay`` (module doc)."""
    if delay <= 0:
        return Shown(game.key, game.seats, game.steps, game.ended, game.game)
    visible = bisect.bisect_right(game.steps, now - delay, key=lambda s: s.at)
    ended = game.ended and game.ended_at + delay <= now
    return Shown(game.key, game.seats, game.steps[:visible], ended,
                 game.game if ended else None)


def on_view(live: LiveGames, delay: float = 0.0, now: float = 0.0) -> list[LiveGame]:
    """The games spectators see as being played: those playing and, with a delay, those
    ended whose end is not shown yet."""
    return [*live.playing.values(), *(g for g in live.ended.values()
                                      if delay > 0 and g.ended_at + delay > now)]


def listing(live: LiveGames, delay: float = 0.0, now: float = 0.0) -> list[dict[str, Any]]:
    """The games being played as spectators see them, for the list page: key, seats, steps
    shown so far (a game stays listed until its end is shown)."""
    return [{"key": g.key, "seats": g.seats, "steps": len(shown(g, delay, now).steps)}
            for g in on_view(live, delay, now)]


def newest(live: LiveGames, delay: float, now: float) -> LiveGame | None:
    """The game spectators see as being played (``on_view``) that started last; None if
    there is none. A game whose end the TV has shown is no longer among them."""
    return max(on_view(live, delay, now), key=lambda g: g.number, default=None)


async def delayed(game: LiveGame, delay: float) -> AsyncGenerator[list[Step] | None]:
    """``game.follow()`` as a spectator sees it with ``delay``: every step once it is that
    old, in batches (all those come of age at once), then None once the end is."""
    if delay <= 0:
        async with aclosing(game.follow()) as batches:
            async for batch in batches:
                yield batch
        return
    sent = 0
    while True:
        changed = game.changed
        now = trio.current_time()
        view = shown(game, delay, now)
        if sent < len(view.steps):
            batch = list(view.steps[sent:])
            sent = len(view.steps)
            yield batch
            continue
        if view.ended:
            yield None
            return
        due = math.inf
        if sent < len(game.steps):
            due = game.steps[sent].at + delay
        elif game.ended:
            due = game.ended_at + delay
        with trio.move_on_at(due):
            await changed.wait()


async def on_air(live: LiveGames, delay: float
                 ) -> AsyncGenerator[tuple[LiveGame, list[Step] | None]]:
    """The TV: the newest game being played (``newest``) as ``delayed`` gives it, each batch
    with its game, to its end (None); then the newest game then, joined midway if it is under
    way (its catch-up first); while no game is played, it waits for one."""
    while True:
        started = live.started
        game = newest(live, delay, trio.current_time())
        if game is None:
            await started.wait()
            continue
        async with aclosing(delayed(game, delay)) as batches:
            async for batch in batches:
                yield game, batch


async def next_tick(every: float = PACE_S) -> None:
    """Sleep until the next multiple of ``every`` on trio's clock (``paced``)."""
    await trio.sleep_until((math.floor(trio.current_time() / every) + 1) * every)


async def paced(batches: AsyncGenerator[list[Step] | None], every: float = PACE_S
                ) -> AsyncGenerator[list[Step] | None]:
    """``batches`` with a pause after each until the next multiple of ``every`` on trio's
    clock: the steps made meanwhile come as one batch (``LiveGame.follow`` gives all those not
    yet given), so a reader gets a message per ``every`` at most however fast the game goes,
    each step still once and in order. On the clock's ticks, not ``every`` after each
    reader's own last message, so that the readers of a game wake together and, once they have
    caught up, are at the same step: they are sent the same message, encoded once
    (``LiveGame.encoded``), and woken in one pass of the scheduler."""
    async with aclosing(batches):
        async for batch in batches:
            yield batch
            if batch is not None and every > 0:
                await next_tick(every)


def stream(game: LiveGame, batches: AsyncGenerator[list[Step] | None], request: Request
           ) -> Response:
    """The Server-Sent Events answer for ``batches`` of ``game``, ``paced``."""

    async def events() -> AsyncGenerator[ServerSentEvent | bytes]:
        after = last_event_id(request)
        async with aclosing(paced(batches)) as steps:
            async for batch in steps:
                if batch is None:
                    yield end_message(game)
                    return
                fresh = batch if batch[0].index > after else [
                    s for s in batch if s.index > after]
                if fresh:
                    yield steps_message(game, fresh)

    return event_stream(events())


async def live_events(request: Request) -> Response:
    """One game's public steps as a spectator sees them (event ``steps``, a list; id = the
    last one's index), then ``end``."""
    game = live_game(request)
    return stream(game, delayed(game, live_delay(request)), request)


async def tv_events(request: Request) -> Response:
    """The TV's stream (``on_air``): for each game, ``game`` (its key and seats), its steps
    from the first (``steps``, paced as a game's own stream), then ``end``; then the next
    game's, on the same connection, for as long as the reader stays. A reconnecting reader
    joins the newest game again (its ``Last-Event-ID`` names a step of some game: not used)."""
    live, delay = live_games(request), live_delay(request)

    async def events() -> AsyncGenerator[ServerSentEvent | bytes]:
        current: LiveGame | None = None
        async with aclosing(on_air(live, delay)) as items:
            async for game, batch in items:
                if game is not current:
                    current = game
                    yield ServerSentEvent(data=json.dumps(
                        {"key": game.key, "seats": list(game.seats)}), event="game")
                if batch is None:
                    yield end_message(game)
                    continue
                yield steps_message(game, batch)
                await next_tick()

    return event_stream(events())


def end_message(game: LiveGame) -> ServerSentEvent:
    """The ``end`` event: the recorded game's id (None: the game stopped unrecorded)."""
    return ServerSentEvent(data=json.dumps({"game": game.game}), event="end")


def steps_message(game: LiveGame, steps: Sequence[Step]) -> bytes:
    """The ``steps`` event of ``steps`` (consecutive steps of ``game``), encoded once for every
    reader sent the same (``LiveGame.encoded``): a watcher joining midway is sent the game so
    far, up to a whole game's JSON, and readers who join or wake together are at the same
    point. The JSON texts are made once per step (``Step.text``), joined as a list. Not kept
    once the game has ended: nothing would empty it then, and a reader who opens an ended
    game's stream is sent the whole game, which would stay as long as the game is kept
    (``live.ENDED_KEPT``, whose bound counts the steps, not these)."""
    span = (steps[0].index, steps[-1].index)
    message = game.encoded.get(span)
    if message is None:
        message = ServerSentEvent(data=f"[{','.join(step.text for step in steps)}]",
                                  event="steps", id=str(span[1])).encode()
        if not game.ended:
            game.encoded[span] = message
    return message


def last_event_id(request: Request) -> int:
    """The last step a reconnecting reader got (-1: none)."""
    value = request.headers.get("last-event-id", "")
    return int(value) if value.isdecimal() else -1
