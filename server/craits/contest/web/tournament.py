"""An ordinary tournament on the web while it runs (``craits tournament run FILE --web PORT``).

The pages are the contest's, pointed at a tournament store instead of a contest: the same
Starlette on Hypercorn's trio worker (started by the CLI, in the run's own trio run), the same
layout, the same live games ("TV") and the same viewer as the static report. The routes that
``craits serve``'s pages share (the front page and its stream, the live games, the error page)
are ``sitepages.py``'s, given this site's templates, store and rule; this module has the
standings' reading, the live games' watch and rule, ``/standings.json`` and ``/games/N``.
Routes:

- ``/``: the standings (``craits tournament show``'s numbers, in the report's own tables) and
  the latest finished games, plain HTML; a small script swaps in the new standings when
  ``/standings/events`` (Server-Sent Events, one shared reading: ``feed.Feed``) says they
  changed, and without scripts a ``<noscript>`` refresh keeps the page current.
- ``/standings.json``: the standings as ``craits tournament show --json`` prints them.
- ``/games/N``: a finished game in the report's viewer (``craits.report``: its loader's check,
  its frames, its page), or only its result while its deal is still in play (below).
- ``/live``, ``/live/KEY``, ``/live/KEY/events``: the games being played (in this process or
  by its worker processes; not on Ray), public moves only (``craits.contest.live``, fed by the
  runner's ``GameWatch``), rendered by the contest's own templates, script and stream
  (``live.py``), with no delay.

What may be shown is decided by the rules already written for the tournament's published
results, not again here: a recorded game whose deal is still to be played at another seating
(``Store.deals_in_play``, the rule of the static report and the CSV) gets no viewer, no seed and
no link until that seating has been played (its points and places, like the standings', are
shown at once); a game being played shows only what ``LiveGames`` keeps, its redacted public
events; the tournament's own seed is never shown; fault texts lose the organiser's paths
(``report.published``).

**Live games and fair play** (``LiveRule``). A seating's public moves are the deal's cards as
they are played, and every seating of a deal is played by the bots of one meeting: a bot that
reads them before it plays another seating of that deal knows cards it should not. So a game
whose deal is still to be played at another seating (``Store.deals_in_play`` asked of the live
games: the report's rule, asked of games being played too) is held while one of its bots could
read these pages (``TournamentConfig.reads_published``): a remote bot, or a command bot run
unsandboxed (``trust = "trusted"``). A held game is listed with no link and no count of its
moves, its page (``/live/KEY``) says it is held and shows no move, its stream is refused (403);
once no seating of its deal is left to play, its moves are shown as any game's (and, once it is
over, the whole game on ``/games/N``). The rule is asked of the store (in a thread) at each
request, after the live game was taken, and a job only moves on, so a game read as shown stays
safe to show. In an adversarial run nothing is held: its command bots are sandboxed with no
network, its remote bots are dealt independent deals (no other seating shares them), bundled
bots are our own code and in-process bots the organiser's (which could read the store itself),
so what a spectator sees reaches no bot that will play the deal again (``docs/security.md``), as
the contest's live games. A trusted run's command and remote bots could carry what they saw at
one seating into the next by themselves (memory, files): the rule keeps these pages from being
one more way, which a program that keeps nothing between games would otherwise still have.
``OPEN_LIVE`` (nothing held) is for a test's control run, never an option of the command.

The contest's templates ``live.html``, ``live_list.html`` and ``error.html`` are used as they
are: this module's ``tournament_templates/`` comes first in the template loader, so their
``{% extends "base.html" %}`` finds the tournament's ``base.html`` instead of the contest's;
both extend the contest's ``layout.html`` (the page's frame, written once) with their own
navigation (block ``nav``: the tournament's has no sign-in and no phases) and the tournament's
adds its live note (block ``notice``). Its ``held.html`` shows the result with the contest's
``result_table.html``, and the live list marks held games in ``live_table.html``. The
contest's stylesheet and scripts (``static/``) and its security headers (``headers.py``: no
inline script but the report viewer's) are used as they are too; the standings' one script is
in ``tournament_static/``. Its ``standings.html`` (the panels, and a refresh while the reading
is ``updating``) is ``craits serve``'s front page too.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Protocol, TypeVar

import trio
from jinja2 import ChoiceLoader, Environment, PackageLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.templating import Jinja2Templates

from craits.engine import Event, Game
from craits.ratings.standings import compute_standings
from craits.report.assets import STYLE
from craits.report.frames import game_frames
from craits.report.index_page import games_table, standings_table
from craits.report.published import public_game, store_roots
from craits.report.site import game_line
from craits.report.stored import ReportError, StoredGame, load_game
from craits.report.viewer_page import viewer_page
from craits.tournament.plan.config import TournamentConfig
from craits.tournament.plan.schedule import Job
from craits.tournament.store.database import Store, TournamentInfo

from ..live import LiveGames, public_step
from .feed import Feed
from .sitepages import SitePages, render, site_app, site_of

T = TypeVar("T")

STANDINGS_INTERVAL_S: Final = 1.0
"""How often the store is looked at for new games while anyone watches the standings."""
RECENT_GAMES: Final = 100
"""Finished games listed on the front page, latest first (the report lists them all)."""

TEMPLATES: Final = Jinja2Templates(env=Environment(
    loader=ChoiceLoader([PackageLoader("craits.contest.web", "tournament_templates"),
                         PackageLoader("craits.contest.web")]),
    autoescape=select_autoescape(["html"])))
TEMPLATES.env.globals["style"] = STYLE


@dataclass(slots=True)
class _Watched:
    """A game being played, as ``LiveWatch`` follows it: what it holds of the game until its
    public steps are made (``catch_up``)."""

    key: str
    seats: tuple[str, ...]
    observe: Callable[[Game], None] | None
    """Its ``LiveGame``'s observer, for a game played here: makes the public steps of the
    events not yet made (None: the game is played in a worker process)."""
    game: Game | None = None
    """A game played here, at its last move (only ever handed to ``observe``, which keeps its
    public events alone)."""
    events: list[Event] = field(default_factory=list)
    """A game played in a worker process: its public events (redacted there) not yet made
    into steps."""
    over: bool = False
    made: int = 0
    """Steps made of a worker's game."""
    followed: bool = False
    looked: bool = False

    def catch_up(self, live: LiveGames) -> None:
        """Make one step of everything since the last."""
        if self.observe is not None and self.game is not None:
            self.observe(self.game)
            self.game = None
        elif self.events:
            live.step(self.key, public_step(self.made, self.events, self.seats), self.over)
            self.made += 1
            self.events = []


class LiveWatch:
    """The runner's ``GameWatch`` feeding ``live``: a game is keyed by its index in the
    schedule, which is also its page's (``/games/N``), so the live page's end links it. Games
    played in this process come as the game after each move (``start``'s observer); games played
    in worker processes as their public events, redacted there (``public``).

    Why lazily: making a move's public step (redaction, words, JSON) costs more than the move
    itself for bots played in process, and doing it for every move of every game doubled such a
    tournament's time (480 games: 12 s, 24-27 s with --web) while nobody watched. So a game's
    steps are made only once someone looks: ``refresh`` (the list of live games) makes one step
    of everything since the last, and ``follow`` (a game's page or stream) does that and then
    makes a step of each move (or each worker's message) as it comes, as the contest does. A
    reader joining midway still gets every public event from the first; a game nobody looked at
    ends with no steps (its page, ``/games/N``, has the whole game)."""

    def __init__(self, live: LiveGames) -> None:
        self.live = live
        self._playing: dict[str, _Watched] = {}

    def start(self, job: Job) -> Callable[[Game], None]:
        key = str(job.game_index)
        watched = self._playing[key] = _Watched(key, job.seats,
                                                self.live.start(key, job.seats))

        def observer(game: Game) -> None:
            watched.game = game
            if watched.followed:
                watched.catch_up(self.live)

        return observer

    def public(self, job: Job, events: Sequence[Event], over: bool) -> None:
        key = str(job.game_index)
        watched = self._playing.get(key)
        if watched is None:
            self.live.start(key, job.seats)
            watched = self._playing[key] = _Watched(key, job.seats, None)
        watched.events += events
        watched.over = over
        if watched.followed:
            watched.catch_up(self.live)

    def refresh(self, key: str | None = None) -> None:
        """Bring game ``key`` (None: every game being played) up to date, once."""
        for k in ([key] if key is not None else list(self._playing)):
            watched = self._playing.get(k)
            if watched is not None:
                watched.looked = True
                watched.catch_up(self.live)

    def follow(self, key: str) -> None:
        """From now on, make game ``key``'s steps as it is played (someone watches it)."""
        self.refresh(key)
        watched = self._playing.get(key)
        if watched is not None:
            watched.followed = True

    def end(self, job: Job, recorded: bool) -> None:
        key = str(job.game_index)
        watched = self._playing.get(key)
        if watched is not None and watched.looked:
            self.refresh(key)  # its last moves, for a page opened just after the end
        self._playing.pop(key, None)
        self.live.end(key, job.game_index if recorded else None)


@dataclass(frozen=True, slots=True)
class LiveRule:
    """Which live games' moves may be shown now (module doc, "Live games and fair play"): not
    those with a bot of ``readers`` at a seat while their deal is still to be played at another
    seating (``Store.deals_in_play``, the report's rule, asked of games being played too). The
    seatings of a deal are played by the bots of one meeting, so these are the bots that would
    play it again."""

    readers: frozenset[str]
    """The bots whose programs could read these pages (``TournamentConfig.reads_published``):
    none in an adversarial run."""

    @classmethod
    def of(cls, config: TournamentConfig) -> LiveRule:
        """The tournament's own rule."""
        return cls(frozenset(n for n in config.bot_names if config.reads_published(n)))

    def held(self, store: Store, tid: str, games: Mapping[str, Sequence[str]]) -> set[str]:
        """The keys of ``games`` (key: the seats' bots; being played or lately ended, taken
        from ``LiveGames`` before this is asked, as a job only moves on) whose moves must not
        be shown. Reads the store when a reader sits at one of them (the jobs that share their
        seeds: about 2 ms at 9,000 jobs, 40 ms at 90,000, with no index on seeds): call it in a
        thread."""
        asked = [key for key, seats in games.items() if self.readers.intersection(seats)]
        if not asked:
            return set()
        in_play = store.deals_in_play(tid, [int(key) for key in asked])
        return {key for key in asked if int(key) in in_play}


OPEN_LIVE: Final = LiveRule(frozenset())
"""Every live game shown move by move, as an adversarial run's are: a test's control run gives
it to a trusted one (never an option of the command)."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One reading of the tournament for its front page: what changes as games finish."""

    counts: tuple[str, int, tuple[tuple[str, int], ...]]
    """Status, games in all, jobs by status: the standings change only when these do."""
    panels: Markup
    """The standings and the latest games, rendered (``standings_panels.html``)."""
    done: int
    total: int
    status: str

    @property
    def updating(self) -> bool:
        """Whether the standings may still change without a new status: the run is running."""
        return self.status == "running"


class Reading(Protocol):
    """A costly reading that ``Spacing.fresh`` keeps while it stands."""

    @property
    def counts(self) -> object:
        """What the reading changes only with: it stands while these are the same."""

    @property
    def status(self) -> str:
        """The run's status: a new one is read at once."""


R = TypeVar("R", bound=Reading)


class Spacing:
    """When a costly read may be made again: at most once per ``SPACING`` times the last one's
    cost on ``clock`` (why: ``StandingsReader``; ``craits serve``'s pages space theirs too)."""

    SPACING: Final = 10.0

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._next_at = -math.inf
        self.reads = 0
        """Reads made (the throttle's test counts them)."""

    def due(self) -> bool:
        """Whether the next read may be made now."""
        return self.clock() >= self._next_at

    def read(self, read: Callable[[], T]) -> T:
        """``read()``, timed: the next is due after ``SPACING`` times what it took."""
        started = self.clock()
        value = read()
        self.reads += 1
        ended = self.clock()
        self._next_at = ended + self.SPACING * (ended - started)
        return value

    def fresh(self, last: R | None, counts: object, status: str, read: Callable[[], R]) -> R:
        """``last`` while it stands (its ``counts`` are these, or its status is and the next
        read is not due yet), else ``read()``, timed."""
        if last is not None and (last.counts == counts or (
                last.status == status and not self.due())):
            return last
        return self.read(read)


class StandingsReader:
    """Reads a ``Snapshot`` (in a worker thread: ``Feed`` calls it), again only once the job
    counts have moved: a cheap query per second, the results read when a game was recorded.

    Why a throttle too: reading every result and fitting the standings grows with the
    tournament (about 0.1 s at 1,200 games here, a second at tens of thousands), and the run
    process that serves the pages is the one that claims and records games, so a page left open
    on a big, fast tournament would spend a core refitting once a second. A full read is
    therefore made at most once per ``Spacing.SPACING`` times its last cost: readers then cost
    the run about a tenth of a core at most, and a big tournament's standings lag by that much.
    A new status (the run started, paused or finished) is read at once."""

    def __init__(self, store: Store, tournament_id: str,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.tid = tournament_id
        self.names = store.config(tournament_id).bot_names
        self.spacing = Spacing(clock)
        self._last: Snapshot | None = None

    @property
    def reads(self) -> int:
        """Full reads made (the throttle's test counts them)."""
        return self.spacing.reads

    def __call__(self) -> Snapshot:
        info = self.store.tournament(self.tid)
        counts = (info.status, info.total, tuple(sorted(info.jobs.items())))
        self._last = self.spacing.fresh(self._last, counts, info.status,
                                        lambda: self._read(info, counts))
        return self._last

    def _read(self, info: TournamentInfo, counts: tuple[str, int, tuple[tuple[str, int], ...]]
              ) -> Snapshot:
        """The whole snapshot: results, deals in play, the standings, rendered."""
        results = self.store.results(self.tid)
        in_play = self.store.deals_in_play(self.tid)  # after the results: see export_rows
        hands = self.store.hands_played(self.tid)
        lines = [game_line(r, hands.get(r.game_index, 0), r.game_index not in in_play,
                           r.game_index in in_play) for r in results[::-1][:RECENT_GAMES]]
        lines = [replace(g, href=None if g.href is None else f"/games/{g.index}")
                 for g in lines]
        standings = compute_standings(results, self.names)
        panels = Markup(TEMPLATES.env.get_template("standings_panels.html").render(
            standings=Markup(standings_table(standings)), s=standings,
            games=Markup(games_table(lines)), done=info.jobs.get("done", 0),
            total=info.total, status=info.status, listed=len(lines)))
        return Snapshot(counts, panels, info.jobs.get("done", 0), info.total, info.status)


@dataclass
class TournamentSite:
    """What the tournament's own routes read: the store, the tournament, and which live games'
    moves are held back (the shared routes' part is ``sitepages.SitePages``)."""

    store: Store
    tid: str
    rule: LiveRule

    async def held(self, games: Mapping[str, Sequence[str]]) -> set[str]:
        """``rule.held``, read in a thread (the run records games meanwhile); no thread when
        no bot could read the pages (an adversarial run)."""
        if not self.rule.readers:
            return set()
        return await trio.to_thread.run_sync(self.rule.held, self.store, self.tid, games)


def tournament_app(store: Store, tournament_id: str, live: LiveGames,
                   live_note: str = "", watch: LiveWatch | None = None,
                   rule: LiveRule | None = None) -> Starlette:
    """The pages of tournament ``tournament_id`` in ``store`` (read from any thread: the
    runner records in it meanwhile), errors answered as pages. ``live_note``: a sentence on
    the live pages, e.g. that games played by worker processes are not shown live; ``watch``:
    the ``LiveWatch`` feeding ``live``, told when a live game is looked at; ``rule``: which
    live games are held back (None: the tournament's own, ``LiveRule.of``)."""
    site = TournamentSite(store, tournament_id,
                          rule if rule is not None else LiveRule.of(store.config(tournament_id)))
    pages = SitePages(
        TEMPLATES, {"contest": store.tournament(tournament_id).name, "tid": tournament_id,
                    "live_note": live_note},
        "standings.html", "standings",
        Feed(StandingsReader(store, tournament_id), STANDINGS_INTERVAL_S), live, watch,
        site.held)
    return site_app(pages, site, _standings_json, _game)


async def _standings_json(request: Request) -> Response:
    """``craits tournament show --json``'s object, with the run's progress."""
    site = site_of(request, TournamentSite)

    def read() -> dict[str, Any]:
        info = site.store.tournament(site.tid)
        standings = site.store.standings(site.tid)
        return {"tournament": site.tid, "name": info.name, "status": info.status,
                "done": info.jobs.get("done", 0), "total": info.total, **standings.to_dict()}

    return JSONResponse(await trio.to_thread.run_sync(read),
                        headers={"Cache-Control": "no-cache"})


async def _game(request: Request) -> Response:
    """A finished game in the report's viewer; while another seating of its deal is still to
    be played, its result only (the viewer shows every card, and that seating gets the same
    ones)."""
    site = site_of(request, TournamentSite)
    wanted: int = request.path_params["index"]

    def read() -> tuple[StoredGame, bool] | None:
        try:
            game = load_game(site.store, site.tid, wanted)
        except ReportError:
            return None
        # after the game was read: see export_rows
        held = wanted in site.store.deals_in_play(site.tid, [wanted])
        return (game, True) if held else (public_game(game, store_roots(site.store.file)),
                                          False)

    found = await trio.to_thread.run_sync(read)
    if found is None:
        raise HTTPException(404, f"no finished game {wanted}: a game is shown once it is over")
    game, held = found
    if not held:
        page = await trio.to_thread.run_sync(
            lambda: viewer_page(game, game_frames(game), {"index": "/"}))
        return HTMLResponse(page, headers={"Cache-Control": "no-cache"})
    r = game.result
    order = sorted(range(len(r.seats)), key=lambda k: (r.places[k], k))
    rows = [(r.places[k], k, r.seats[k], r.totals[k], r.strikes[k], r.forfeited[k])
            for k in order]
    return render(request, "held.html", index=wanted, rows=rows)

