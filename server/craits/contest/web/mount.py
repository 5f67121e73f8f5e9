"""How the pages join the contest's application: after the API's routes, so ``/api/...`` and
``/openapi.json`` keep answering JSON and every other path is a page (a 404 there is a page
too); and the security headers (``headers.py``) on every answer of both."""

from __future__ import annotations

from collections.abc import Sequence

from starlette.applications import Starlette
from starlette.routing import Mount

from craits.ratings.results import ScoredGame

from ..api import Contest
from ..ladderstore import scored_games
from .headers import SecurityHeaders
from .pages import pages_app


def recorded_games(contest: Contest) -> Sequence[ScoredGame]:
    """The ladder's finished games (it records a game when it is over), seats as version ids.
    Read whole on each bot's page: a cache keyed by the game count is the step when contests
    reach tens of thousands of games."""
    return scored_games(contest.store)


def with_pages(app: Starlette, contest: Contest) -> Starlette:
    """``app`` (the API) with the pages mounted after its routes, and the security headers."""
    app.router.routes.append(Mount("", app=pages_app(contest, lambda: recorded_games(contest))))
    app.add_middleware(SecurityHeaders)
    return app
