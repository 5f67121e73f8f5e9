"""The pages' routes: small functions that read the store and hand a template its values.

Every page is plain HTML that reads without JavaScript; the leaderboard's one small script only
swaps in the new board when the feed says it changed (``feed.py``), and without it a
``<noscript>`` refresh keeps the page current. What each page may show:

- the leaderboard, the phases and a game's result: public;
- the live games: public, and only their public events (``live.py``);
- a bot's page: its versions and their status, rating history and recent games, public; the
  reasons, logs and faults of its versions only to its owner, signed in (``signin.py``), as the
  API shows them only to the owner's token, and to the organiser;
- the organiser's pages (``/organiser...``): everything, to the organiser alone
  (``organiser.py``).

Every answer carries the security headers of ``headers.py`` (added where the pages are
mounted); no page has an inline script or style attribute, so the policy can forbid them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import trio
from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from craits.ratings.results import ScoredGame
from craits.report.assets import STYLE

from ..api import Contest
from ..organiser import is_organiser
from ..phases import deal_sets_played, finals_of
from ..results import results, results_page
from ..store import Contestant
from ..tokens import token_digest
from ..uploads import UploadRefused
from .assets import static_files
from .board import Board, read_board
from .boardpage import BoardPages, cached_page
from .feed import Feed
from .history import rating_plot, recent_games
from .live import (
    listing,
    live_delay,
    live_events,
    live_game,
    live_games,
    newest,
    shown,
    stream,
    tv_events,
)
from .organiser import overview, require_organiser, whole_game
from .signin import COOKIE, forget, organiser, remember, signed_in
from .sse import event_stream
from .upload import upload_version
from .viewer import game_viewer

BOARD_INTERVAL_S: Final = 1.0
"""How often the shared board is read for changes while anyone watches it."""

TEMPLATES: Final = Jinja2Templates(env=Environment(
    loader=PackageLoader("craits.contest.web"), autoescape=select_autoescape(["html"])))
TEMPLATES.env.globals["style"] = STYLE


@dataclass
class Site:
    """What the pages share: the contest, the board (its feed and renderings), and where
    finished games come from (the ladder's recorded games: seat ids are version ids as
    text)."""

    contest: Contest
    board: BoardPages
    games: Callable[[], Sequence[ScoredGame]]


def pages_app(contest: Contest, games: Callable[[], Sequence[ScoredGame]]) -> Starlette:
    """The pages over ``contest``, errors answered as pages."""
    feed = Feed(lambda: _read_board(contest), BOARD_INTERVAL_S)
    site = Site(contest, BoardPages(feed, TEMPLATES.env, contest.config.name), games)
    routes = [
        Route("/", _board, methods=["GET"]),
        Route("/board/events", _board_events, methods=["GET"]),
        Route("/phases", _phases, methods=["GET"]),
        Route("/results", _results, methods=["GET"]),
        Route("/bots/{contestant_id:int}", _bot, methods=["GET"]),
        Route("/bots/{contestant_id:int}/versions", _upload, methods=["POST"]),
        Route("/games/{game_id:int}", _game, methods=["GET"]),
        Route("/live", _live_list, methods=["GET"]),
        Route("/live/{key}", _live_page, methods=["GET"]),
        Route("/live/{key}/events", live_events, methods=["GET"]),
        Route("/tv", _tv_page, methods=["GET"]),
        Route("/tv/events", tv_events, methods=["GET"]),
        Route("/signin", _signin_form, methods=["GET"]),
        Route("/signin", _signin, methods=["POST"]),
        Route("/signout", _signout, methods=["POST"]),
        Route("/organiser", _organiser, methods=["GET"]),
        Route("/organiser/live/{key}", _organiser_live, methods=["GET"]),
        Route("/organiser/live/{key}/events", _organiser_live_events, methods=["GET"]),
        static_files(),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: _error})
    app.state.site = site
    app.state.live_delay_s = contest.config.live_delay_s
    return app


def _site(request: Request) -> Site:
    site: Site = request.app.state.site
    return site


def _render(request: Request, name: str, status: int = 200, **values: Any) -> Response:
    site = _site(request)
    store = site.contest.store
    return TEMPLATES.TemplateResponse(request, name, {
        "contest": site.contest.config.name, "phase": site.contest.phase(),
        "me": signed_in(request, store), "organiser": organiser(request, store),
        **values}, status_code=status)


async def _error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return _render(request, "error.html", exc.status_code, message=exc.detail)


def _read_board(contest: Contest) -> Board:
    """The board and the phase, as one value of the feed (read in a worker thread)."""
    rows = read_board(contest.store, contest.config.playing_versions, contest.clock())
    return Board(tuple(rows), contest.phase())


async def _board(request: Request) -> Response:
    """The board: the same cached bytes for every reader not signed in (``boardpage.py``);
    a signed-in reader's page is made around the cached table."""
    site = _site(request)
    rendered = await site.board.current()
    store = site.contest.store
    if COOKIE in request.cookies and (signed_in(request, store) is not None
                                      or organiser(request, store)):
        return _render(request, "board.html", table=rendered.table)
    return cached_page(request, rendered)


async def _board_events(request: Request) -> Response:
    """The board's table, whole, each time it changes (the event ``board``), encoded once
    per revision for every reader."""
    board = _site(request).board

    async def events() -> AsyncIterator[bytes]:
        async for rendered in board.changes():
            yield rendered.event

    return event_stream(events())


async def _phases(request: Request) -> Response:
    phases = _site(request).contest.config.phases
    dates = [(name, when) for name, when in (("uploads open", phases.open),
                                             ("frozen: no uploads", phases.freeze),
                                             ("finals", phases.finals))]
    return _render(request, "phases.html", dates=[(n, _when(w)) for n, w in dates],
                   finals=_finals(_site(request)))


def _finals(site: Site) -> dict[str, Any] | None:
    """The finals' state for the phases page: when they started, each finalist's deal sets
    played of the target, whether they are done; None before they start."""
    finals = finals_of(site.contest.store)
    if finals is None:
        return None
    played = deal_sets_played(finals, site.games())
    names = _seat_names(site)
    return {"started": _when(dt.datetime.fromtimestamp(finals.started_at, dt.UTC)),
            "done": None if finals.done_at is None
            else _when(dt.datetime.fromtimestamp(finals.done_at, dt.UTC)),
            "target": finals.deal_sets,
            "finalists": [(names.get(str(v), f"version {v}"), played[v])
                          for v in finals.finalists]}


async def _results(request: Request) -> Response:
    """The results as ``craits contest export`` writes them (``results.html``), from the store
    now: saying they are final only once the finals are done."""
    contest = _site(request).contest
    page = results_page(results(contest.config, contest.store, contest.clock()))
    return HTMLResponse(page, headers={"Cache-Control": "no-cache"})


def _when(when: dt.datetime | None) -> str:
    return "not set" if when is None else when.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def _contestant(request: Request) -> Contestant:
    wanted: int = request.path_params["contestant_id"]
    for contestant in _site(request).contest.store.contestants():
        if contestant.id == wanted:
            return contestant
    raise HTTPException(404, f"no contestant {wanted}")


async def _bot(request: Request, notice: str = "", status: int = 200) -> Response:
    site = _site(request)
    store = site.contest.store
    contestant = _contestant(request)
    owner = signed_in(request, store) == contestant
    private = owner or organiser(request, store)  # reasons, faults and logs
    versions = store.versions_of(contestant.id)
    games = site.games()
    numbers = {str(v.id): v.number for v in versions}
    names = _seat_names(site)
    faults = {v.id: store.faults_of(v.id, 20) for v in versions} if private else {}
    return _render(request, "bot.html", status, bot=contestant, owner=owner,
                   private=private, versions=versions, faults=faults, notice=notice,
                   plot=rating_plot(games, {s: f"v{n}" for s, n in numbers.items()}),
                   recent=recent_games(games, numbers, names))


def _seat_names(site: Site) -> dict[str, str]:
    """Every version's public name (``alice v2``) by its seat id in recorded games."""
    store = site.contest.store
    return {str(v.id): f"{c.name} v{v.number}" for c in store.contestants()
            for v in store.versions_of(c.id)}


async def _upload(request: Request) -> Response:
    site = _site(request)
    contestant = _contestant(request)
    if signed_in(request, site.contest.store) != contestant:
        raise HTTPException(403, "sign in as this bot's owner to upload a version of it")
    async with request.form(max_files=1, max_fields=4) as form:
        file = form.get("bot")
        if not isinstance(file, UploadFile):
            return await _bot(request, "choose your bot's file or archive first", 422)
        try:
            notice = await upload_version(site.contest, contestant, file)
        except UploadRefused as exc:
            return await _bot(request, str(exc), 422)
    return await _bot(request, notice, 201)


async def _game(request: Request) -> Response:
    site = _site(request)
    wanted: int = request.path_params["game_id"]
    game = next((g for g in site.games() if g.game_index == wanted), None)
    if game is None:
        raise HTTPException(404, f"no finished game {wanted}: a game is shown once it is over")
    names = _seat_names(site)
    viewer = await trio.to_thread.run_sync(game_viewer, site.contest.store,
                                           site.contest.config.name, game, names)
    if viewer is not None:
        return HTMLResponse(viewer)
    order = sorted(range(len(game.seats)), key=lambda k: (game.places[k], k))
    rows = [(game.places[k], k, names.get(game.seats[k], game.seats[k]), game.totals[k],
             game.strikes[k], game.forfeited[k]) for k in order]
    return _render(request, "game.html", game=game, rows=rows)


async def _live_list(request: Request) -> Response:
    return _render(request, "live_list.html", games=listing(
        live_games(request), live_delay(request), trio.current_time()))


async def _live_page(request: Request) -> Response:
    game = shown(live_game(request), live_delay(request), trio.current_time())
    return _render(request, "live.html", game=game, steps=game.steps,
                   events=f"/live/{game.key}/events")


async def _tv_page(request: Request) -> Response:
    """The TV: the newest game being played, its public moves so far (a page that reads
    without JavaScript, refreshed); its script follows ``/tv/events`` from game to game."""
    delay, now = live_delay(request), trio.current_time()
    game = newest(live_games(request), delay, now)
    return _render(request, "tv.html", game=shown(game, delay, now) if game else None)


async def _organiser(request: Request) -> Response:
    """Every contestant's versions, and the games being played (links to every hand)."""
    site = _site(request)
    require_organiser(request, site.contest.store)
    return _render(request, "organiser.html", contestants=overview(site.contest.store),
                   games=listing(site.contest.live, 0.0, trio.current_time()),
                   delay=site.contest.config.live_delay_s)


async def _organiser_live(request: Request) -> Response:
    """A game being played, every card (the organiser's ``live.html``), not delayed."""
    contest = _site(request).contest
    require_organiser(request, contest.store)
    game = whole_game(contest, request.path_params["key"])
    return _render(request, "live.html", game=game, steps=game.steps, whole=True,
                   events=f"/organiser/live/{game.key}/events")


async def _organiser_live_events(request: Request) -> Response:
    """The stream of a game being played, every card: as ``/live/KEY/events``, whole."""
    contest = _site(request).contest
    require_organiser(request, contest.store)
    game = whole_game(contest, request.path_params["key"])
    return stream(game, game.follow(), request)


async def _signin_form(request: Request) -> Response:
    return _render(request, "signin.html", message="")


async def _signin(request: Request) -> Response:
    async with request.form(max_files=0, max_fields=2) as form:
        token = str(form.get("token", "")).strip()
    store = _site(request).contest.store
    contestant = store.contestant_by_digest(token_digest(token)) if token else None
    if contestant is not None:
        response = RedirectResponse(f"/bots/{contestant.id}", status_code=303)
    elif is_organiser(store, token):
        response = RedirectResponse("/organiser", status_code=303)
    else:
        return _render(request, "signin.html", 401,
                       message="unknown token: paste the one the organiser gave you")
    remember(response, request, token)
    return response


async def _signout(request: Request) -> Response:
    response = RedirectResponse("/", status_code=303)
    forget(response, request)
    return response
