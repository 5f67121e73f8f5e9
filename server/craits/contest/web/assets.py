"""The pages' own scripts and stylesheet, served from the site (``/static/...``) rather than
written inline, so that the Content-Security-Policy (``headers.py``) can allow the site's own
files and forbid every inline script: ``site.css`` (after the report's stylesheet), ``board.js``
(the leaderboard in place) and ``live.js`` (a live game's moves as they come). Starlette's
``StaticFiles`` serves them (ETag, Last-Modified, 304s). Any site that renders these templates
(the contest's pages, a tournament's) serves them with ``static_files()``.
"""

from __future__ import annotations

from starlette.routing import Mount
from starlette.staticfiles import StaticFiles


def static_files() -> Mount:
    """The route serving ``craits.contest.web``'s ``static/`` at ``/static``."""
    return Mount("/static", StaticFiles(packages=[("craits.contest.web", "static")]),
                 name="static")
