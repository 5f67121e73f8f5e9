"""The pages of ``craits serve --web [HOST:]PORT``: a referee's games between remote bots, as
they are played.

``craits serve`` keeps no store: its finished games are the ``PlayedGame`` values it prints,
kept in one list for the run (``ServedGames.played``: the very list the command prints its
results from, so the pages cost no copy). The pages are the tournament's (``tournament.py``)
pointed at that list: the same routes for the front page, its stream and the live games
(``sitepages.py``, given this run's templates, reading and live games), on Hypercorn's trio
worker, started by the CLI in the referee's own trio run (``cli/tournament_web.serving``);
the same layout (this module's ``serve_templates/`` extend the tournament's ``base.html``), the
same front page (the tournament's ``standings.html``), standings script and stream, the same
live games and the same viewer as the static report. Routes:

- ``/``: the results so far: status (waiting for the bots, playing, finished), games played of
  those asked for, the standings (the report's table: points, places, wins, strikes and a
  rating, each game its own deal set), and the latest finished games, plain HTML; the
  tournament's ``standings.js`` swaps in new panels when ``/standings/events`` (Server-Sent
  Events, one shared reading: ``feed.Feed``) says they changed; without scripts a
  ``<noscript>`` refresh keeps the page current.
- ``/standings.json``: the standings as ``craits tournament show --json`` prints a
  tournament's, with the run's status and progress.
- ``/games/N``: finished game N in the report's viewer, every hand shown.
- ``/live``, ``/live/KEY``, ``/live/KEY/events``: the games being played (KEY is the game's
  number, so the end links ``/games/N``), public moves only (``craits.contest.live``, fed by
  ``play_game``'s ``watch``), from the first move or joining midway, then an explicit end; the
  contest's templates, script and stream (``live.py``), with no delay. A game's public steps
  are made only once someone looks (the tournament's ``LiveWatch``, the run's games given as
  jobs by ``serve_job``): a move's step (redaction, words, JSON) costs 35-150 µs here, against
  0.6-1 ms for a remote bot's whole decision over loopback, paid for nobody otherwise.

**What may be shown, and when.** A game being played shows only what ``LiveGames`` keeps, its
redacted public events. A finished game shows whole hands at once: ``craits serve`` deals each
game from its own seed and never plays a deal twice (no duplicate seatings), so a game's cards
say nothing about a game still to come, and the bots, who watch the same pages, learn only the
past. The one exception is ``--seed N``: the games are then dealt from N, N+1, ... (a testing
mode, ``docs/security.md``), so one game's seed gives every later deal, and a small seed is
found from a game's cards by trying them; with it each game's viewer (and its seed) is held
back until every game has been played, its result shown meanwhile as any other's.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Final

import trio
from jinja2 import ChoiceLoader, Environment, PackageLoader, PrefixLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.templating import Jinja2Templates

from craits.engine import Game
from craits.hosting.match import scored
from craits.ratings.results import ScoredGame
from craits.ratings.standings import Standings, compute_standings
from craits.referee.game import GameSpec, PlayedGame
from craits.report.assets import STYLE
from craits.report.frames import game_frames
from craits.report.html_parts import Html
from craits.report.index_page import games_table, standings_table
from craits.report.published import public_game
from craits.report.site import game_line
from craits.report.stored import from_record
from craits.report.viewer_page import viewer_page
from craits.tournament.plan.schedule import Job
from craits.tournament.run.local_tables import finished_game
from craits.tournament.store.record_codec import encode

from ..live import LiveGames
from .feed import Feed
from .sitepages import SitePages, pages_of, render, site_app, site_of
from .tournament import LiveWatch, Spacing

NAME: Final = "craits serve"
"""What the pages call the run (their title; the viewer's "tournament")."""
RUN_ID: Final = "serve"
"""The viewer's tournament id for a game of ``craits serve`` (it has no store, so no id)."""
STANDINGS_INTERVAL_S: Final = 1.0
"""How often the results are looked at for new games while anyone watches them."""
RECENT_GAMES: Final = 100
"""Finished games listed on the front page, latest first."""

TEMPLATES: Final = Jinja2Templates(env=Environment(
    loader=ChoiceLoader([
        PackageLoader("craits.contest.web", "serve_templates"),
        PrefixLoader({"tournament": PackageLoader("craits.contest.web",
                                                  "tournament_templates")}),
        PackageLoader("craits.contest.web")]),
    autoescape=select_autoescape(["html"])))
"""This module's templates first (its ``base.html`` extends ``tournament/base.html``), then
the contest's (``live.html``, ``live_list.html``, ``error.html``); the tournament's
``standings.html`` is the front page. Each of these extends ``base.html``, and the loader
finds this module's."""
TEMPLATES.env.globals["style"] = STYLE


@dataclass
class ServedGames:
    """A ``craits serve`` run as its pages read it; the CLI tells it what happens
    (``playing``, ``watch``, ``ended``, ``finished``) from the referee's trio task."""

    names: tuple[str, ...]
    """The bots, in ``--bot`` order."""
    total: int
    """The games asked for (``--games``)."""
    seeded: bool
    """The seeds were given (``--seed``): viewers held until every game is played."""
    played: list[PlayedGame]
    """The finished games, in order: the CLI's own list, appended to as each game ends (read
    by the pages' threads as a copy)."""
    live: LiveGames = field(default_factory=LiveGames)
    status: str = "waiting"
    """``waiting`` (for the bots to connect), ``playing``, ``finished``."""
    watcher: LiveWatch = field(init=False)
    """Feeds ``live``: makes a game's public steps once someone looks at it."""
    _playing: dict[int, Job] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        self.watcher = LiveWatch(self.live)

    def playing(self) -> None:
        """Every bot has connected: the games begin."""
        self.status = "playing"

    def watch(self, index: int, spec: GameSpec, seats: Sequence[str]
              ) -> Callable[[Game], None]:
        """Game ``index`` begins: ``play_game``'s ``watch``."""
        job = self._playing[index] = serve_job(index, spec, seats, self.names)
        return self.watcher.start(job)

    def ended(self, index: int) -> None:
        """Game ``index`` is over and in ``played``: its live page now links its viewer."""
        self.watcher.end(self._playing.pop(index), recorded=True)

    def finished(self) -> None:
        """Every game has been played."""
        self.status = "finished"

    @property
    def held(self) -> bool:
        """Whether finished games' viewers are held back (module doc: ``--seed``)."""
        return held(self.seeded, self.status)


def held(seeded: bool, status: str) -> bool:
    """Whether finished games' viewers are held back: the seeds were given (``--seed``) and
    games remain (module doc)."""
    return seeded and status != "finished"


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One reading of the run for its front page: what changes as games finish."""

    counts: tuple[str, int]
    """Status and games played: the results change only when these do."""
    panels: Markup
    """The results and the latest games, rendered (``results_panels.html``)."""
    standings: Standings
    status: str
    done: int

    @property
    def updating(self) -> bool:
        """Whether the results may still change: games remain."""
        return self.status != "finished"


class ResultsReader:
    """Reads a ``Snapshot`` (in a worker thread: ``Feed`` calls it), again only once a game
    has finished or the status changed, and a full read at most once per ten times the last
    one's cost (the tournament's ``Spacing``, and its reason: fitting the standings grows with
    the games, 0.02 s at 1,000 and 0.85 s at 10,000 here, in the referee's process); a new
    status is read at once."""

    def __init__(self, games: ServedGames, clock: Callable[[], float] = time.monotonic
                 ) -> None:
        self.games = games
        self.spacing = Spacing(clock)
        self._last: Snapshot | None = None

    def __call__(self) -> Snapshot:
        g = self.games
        status, played = g.status, list(g.played)  # the referee's task appends meanwhile
        counts = (status, len(played))
        self._last = self.spacing.fresh(self._last, counts, status,
                                        lambda: self._read(status, played))
        return self._last

    def _read(self, status: str, played: list[PlayedGame]) -> Snapshot:
        """The whole snapshot: the standings and the latest games, rendered."""
        g = self.games
        hold = held(g.seeded, status)
        results = scored(played, 1)  # each game its own deal
        standings = compute_standings(results, g.names)
        lines = [replace(line, href=None if line.href is None else f"/games/{line.index}")
                 for r in results[::-1][:RECENT_GAMES]
                 for line in [game_line(r, played[r.game_index].outcome.hands_played,
                                        not hold)]]
        panels = Markup(TEMPLATES.env.get_template("results_panels.html").render(
            standings=Markup(standings_table(standings)), s=standings,
            games=Markup(games_table(lines)), done=len(played), total=g.total, status=status,
            listed=len(lines), held=hold))
        return Snapshot((status, len(played)), panels, standings, status, len(played))


def serve_job(index: int, spec: GameSpec, seats: Sequence[str], names: tuple[str, ...]
              ) -> Job:
    """Game ``index`` of the run as a tournament's job (one meeting of every bot, each game
    its own deal set): what the live games' watch and the viewer's loader read."""
    return Job(tournament_id=RUN_ID, game_index=index, meeting_index=0, meeting=names,
               deal_set=index, rotation=0, seats=tuple(seats), seed=spec.seed,
               rules_json=spec.rules.to_json(), launch=(), time=spec.time,
               failure=spec.policy, game_id=spec.game_id)


def game_viewer(games: ServedGames, index: int) -> Html:
    """Finished game ``index`` in the report's viewer: its record made as a tournament's store
    makes it (``finished_game``, ``encode``) and read back by the report's own loader, which
    replays it and checks the replay ends as played (``from_record``)."""
    played = games.played[index]
    job = serve_job(index, played.spec, played.names, games.names)
    result = ScoredGame(index, 0, index, 0, played.names, played.totals, played.places,
                        played.strikes, played.forfeited)
    record = finished_game(RUN_ID, job, played, 0.0)
    outcome = json.loads(json.dumps(record.outcome))  # as a store reads it back: lists
    stored = from_record(RUN_ID, NAME, job, result, encode(record.play), outcome)
    # no store, so no organiser's directory to make paths relative to: every absolute path
    # a fault quotes keeps its last part only, as in a published report
    return viewer_page(public_game(stored, ()), game_frames(stored), {"index": "/"})


def serve_app(games: ServedGames) -> Starlette:
    """The pages of ``games``, errors answered as pages, every answer with the contest's
    security headers (``sitepages.site_app``)."""
    pages = SitePages(TEMPLATES, {"contest": NAME}, "tournament/standings.html", "results",
                      Feed(ResultsReader(games), STANDINGS_INTERVAL_S), games.live,
                      games.watcher)
    return site_app(pages, games, _results_json, _game)


async def _results_json(request: Request) -> Response:
    """The standings (``Standings.to_dict``), with the run's status and progress."""
    _, snapshot = await pages_of(request).feed.current()
    return JSONResponse({"status": snapshot.status, "done": snapshot.done,
                         "total": site_of(request, ServedGames).total,
                         **snapshot.standings.to_dict()},
                        headers={"Cache-Control": "no-cache"})


async def _game(request: Request) -> Response:
    """A finished game in the report's viewer (with ``--seed``, its result only until every
    game is played)."""
    games = site_of(request, ServedGames)
    index: int = request.path_params["index"]
    if index >= len(games.played):
        raise HTTPException(404, f"no finished game {index}: a game is shown once it is over")
    if games.held:
        return render(request, "serve_held.html", index=index)
    page = await trio.to_thread.run_sync(game_viewer, games, index)
    return HTMLResponse(page, headers={"Cache-Control": "no-cache"})
