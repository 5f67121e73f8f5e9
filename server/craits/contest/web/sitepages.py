"""The routes that a tournament's pages (``tournament.py``) and ``craits serve``'s pages
(``serve.py``) share, written once: the front page (the standings, or the results so far) and
its stream, the live games, and errors answered as pages.

The two sites differ in what they read (a tournament's store, or the referee's list of played
games), in their templates and in which live games are held back. They do not differ in how a
page is answered. So each site gives its differences as one value, ``SitePages``, and mounts
these routes with it (``site_app``). Each keeps its own routes for ``/standings.json`` and
``/games/N``, which read its own data. A route finds what it needs in the app's state, as the
contest's own routes do (``pages.py``: ``app.state.site``; ``live.py``'s stream): the shared
value is ``app.state.pages``, and the site's own value is ``app.state.site`` (``site_of``).

Routes: ``/`` (the front page: ``SitePages.front``, the feed's latest reading),
``/standings/events`` (Server-Sent Events: the panels, whole, each time they change; event
``standings``, which ``tournament_static/standings.js`` swaps in), ``/live``, ``/live/KEY``,
``/live/KEY/events`` (the games being played, public moves only, with the contest's templates,
script and stream: ``live.py``), ``/static/...`` (the contest's files) and
``/static/tournament/...``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import trio
from markupsafe import Markup
from sse_starlette import ServerSentEvent
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from ..live import LiveGame, LiveGames
from .assets import static_files
from .feed import Feed
from .headers import SecurityHeaders
from .live import listing, shown, stream
from .sse import event_stream

S = TypeVar("S")
Endpoint = Callable[[Request], Awaitable[Response]]


class Front(Protocol):
    """A reading of the run, as the front page and its stream show it."""

    @property
    def panels(self) -> Markup:
        """The panels that the stream sends whole and the page's script swaps in."""

    @property
    def updating(self) -> bool:
        """Whether the panels may still change. While they may, the page refreshes itself
        when scripts are off."""


F = TypeVar("F", bound=Front)


class Watch(Protocol):
    """What makes the live games' steps when someone looks at them (``tournament.LiveWatch``)."""

    def refresh(self, key: str | None = None) -> None:
        """Bring game ``key`` (None: every game being played) up to date, once."""

    def follow(self, key: str) -> None:
        """From now on, make game ``key``'s steps as it is played."""


async def nothing_held(games: Mapping[str, Sequence[str]]) -> set[str]:
    """No live game is held back: every game's moves are shown (``craits serve``'s pages)."""
    return set()


@dataclass(frozen=True)
class SitePages(Generic[F]):
    """What the shared routes need from a site: everything in which the two sites differ."""

    templates: Jinja2Templates
    """The site's templates. They must include the contest's ``error.html``, ``live.html`` and
    ``live_list.html``, and the site's ``live_held.html`` if ``held`` can hold a game."""
    values: Mapping[str, Any]
    """Values that every page gets: ``contest`` (the name in the title), and whatever else
    the site's ``base.html`` reads."""
    front: str
    """The front page's template. It gets ``snapshot``, the feed's latest ``Front``."""
    front_name: str
    """What a 404 for a live game sends the reader to (``standings``, ``results``)."""
    feed: Feed[F]
    live: LiveGames
    watch: Watch | None
    """Makes the live games' steps when someone looks (None: ``live`` is fed whole)."""
    held: Callable[[Mapping[str, Sequence[str]]], Awaitable[set[str]]] = nothing_held
    """The keys of the given live games (key: the bots at the seats) whose moves must not be
    shown now. The site's rule: only a tournament's can hold a game (``tournament.LiveRule``)."""


def site_app(pages: SitePages[Any], site: object, standings_json: Endpoint, game: Endpoint
             ) -> Starlette:
    """The site's app: the shared routes over ``pages``, with the site's own routes for
    ``/standings.json`` and ``/games/N`` (path parameter ``index``), which read ``site``
    (``site_of``). Errors are answered as pages, and every answer carries the contest's
    security headers."""
    routes = [
        Route("/", _front, methods=["GET"]),
        Route("/standings/events", _front_events, methods=["GET"]),
        Route("/standings.json", standings_json, methods=["GET"]),
        Route("/games/{index:int}", game, methods=["GET"]),
        Route("/live", _live_list, methods=["GET"]),
        Route("/live/{key}", _live_page, methods=["GET"]),
        Route("/live/{key}/events", _live_events, methods=["GET"]),
        Mount("/static/tournament", StaticFiles(packages=[
            ("craits.contest.web", "tournament_static")])),
        static_files(),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: _error})
    app.add_middleware(SecurityHeaders)
    app.state.pages = pages
    app.state.site = site
    return app


def pages_of(request: Request) -> SitePages[Any]:
    """The shared value of the site that ``request`` came to."""
    pages: SitePages[Any] = request.app.state.pages
    return pages


def site_of(request: Request, kind: type[S]) -> S:
    """The site's own value (``site_app``'s ``site``), which its own routes read."""
    site = request.app.state.site
    assert isinstance(site, kind)
    return site


def render(request: Request, name: str, status: int = 200, **values: Any) -> Response:
    """Template ``name`` of the site, with the values that every page gets and ``values``.
    It is never cached without asking again: the pages change as the run goes on."""
    pages = pages_of(request)
    return pages.templates.TemplateResponse(
        request, name, {**pages.values, **values}, status_code=status,
        headers={"Cache-Control": "no-cache"})


async def _error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return render(request, "error.html", exc.status_code, message=exc.detail)


async def _front(request: Request) -> Response:
    pages = pages_of(request)
    _, snapshot = await pages.feed.current()
    return render(request, pages.front, snapshot=snapshot)


async def _front_events(request: Request) -> Response:
    """The front page's panels, whole, each time they change (the event ``standings``)."""
    feed = pages_of(request).feed

    async def events() -> AsyncIterator[ServerSentEvent]:
        async for _, snapshot in feed.changes():
            yield ServerSentEvent(data=str(snapshot.panels), event="standings")

    return event_stream(events())


async def _live_game(request: Request) -> tuple[LiveGame, bool]:
    """The game the path names, being played or lately ended, and whether it is held. A game
    that is not held is followed from now on. 404 if there is no such game."""
    key: str = request.path_params["key"]
    pages = pages_of(request)
    game = pages.live.get(key)
    if game is None:
        raise HTTPException(404, f"no live game {key}: it may have ended; see the "
                            f"{pages.front_name}")
    held = key in await pages.held({key: game.seats})
    if not held and pages.watch is not None:
        pages.watch.follow(key)
    return game, held


async def _live_list(request: Request) -> Response:
    """The games being played. A held game is listed with no link and no count of its moves."""
    pages = pages_of(request)
    if pages.watch is not None:
        pages.watch.refresh()
    games = listing(pages.live, 0.0, trio.current_time())
    held = await pages.held({g["key"]: g["seats"] for g in games})
    return render(request, "live_list.html",
                  games=[{**g, "held": g["key"] in held} for g in games])


async def _live_page(request: Request) -> Response:
    live, held = await _live_game(request)
    if held:
        return render(request, "live_held.html", game=live)
    game = shown(live, 0.0, trio.current_time())
    return render(request, "live.html", game=game, steps=game.steps,
                  events=f"/live/{game.key}/events")


async def _live_events(request: Request) -> Response:
    """One game's public steps (event ``steps``), then ``end``: the contest's stream. A held
    game's stream is refused (403) and sends no step."""
    game, held = await _live_game(request)
    if held:
        raise HTTPException(403, f"game {game.key}'s moves are held back while its deal is "
                            "still to be played at another seating")
    return stream(game, game.follow(), request)
