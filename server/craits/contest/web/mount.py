"""How the pages join the contest's application: after the API's routes, so ``/api/...`` and
``/openapi.json`` keep answering JSON and every other path is a page (a 404 there is a page
too)."""

from __future__ import annotations

from collections.abc import Sequence

from starlette.applications import Starlette
from starlette.routing import Mount

from craits.ratings.results import ScoredGame

from ..api import Contest
from .pages import pages_app


def recorded_games(contest: Contest) -> Sequence[ScoredGame]:
    """The ladder's finished games. None yet: the ladder (issue 31) records games in the
    store; until it does, every page says no game has been played."""
    return ()


def with_pages(app: Starlette, contest: Contest) -> Starlette:
    """``app`` (the API) with the pages mounted after its routes."""
    app.router.routes.append(Mount("", app=pages_app(contest, lambda: recorded_games(contest))))
    return app
