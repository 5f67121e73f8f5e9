"""The leaderboard's page and its stream, rendered once per revision of the board for every
reader.

Why: a contest is read far more often than its board changes. Two hundred contestants keeping
the board open cost two hundred Jinja renders a second, on the one event loop that also serves
the live games, while the board itself changes at most once per read of the feed
(``feed.py``). So for each revision of the feed the page as a reader who is not signed in sees
it (the same bytes for all of them), the board's table (the fragment the page's script swaps in)
and the Server-Sent Event carrying that table are made once and kept as bytes: a poll is a
lookup, and a poll whose ``If-None-Match`` names the page's ``ETag`` is answered ``304 Not
Modified`` without a body. The ETag is a hash of the page's bytes, not the revision's number,
so it stays right across a restart of the server (revisions start again from one).

A signed-in reader's page names them in its header: it is rendered for them, around the same
cached table (``pages._board``).
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from jinja2 import Environment
from markupsafe import Markup
from sse_starlette import ServerSentEvent
from starlette.requests import Request
from starlette.responses import Response

from .board import Board
from .feed import Feed

HEADERS = {"Cache-Control": "no-cache", "Vary": "Cookie"}
"""A poll asks again each time (``no-cache``: revalidate, which costs a 304), and a cache
never hands one reader's page to another (``Vary: Cookie``: a signed-in page names its
reader)."""


@dataclass(frozen=True, slots=True)
class Rendered:
    """One revision of the board, rendered."""

    revision: int
    table: Markup
    """The board's table (``board_table.html``), for pages rendered around it."""
    page: bytes
    """The whole page for a reader who is not signed in."""
    etag: str
    event: bytes
    """The Server-Sent Event ``board`` carrying ``table``, encoded."""


class BoardPages:
    """The board's renderings, each made once per revision of ``feed`` (module doc)."""

    def __init__(self, feed: Feed[Board], templates: Environment, contest: str) -> None:
        self.feed = feed
        self._templates = templates
        self._contest = contest
        self._rendered: Rendered | None = None
        self.renders = 0
        """How many revisions were rendered (a test's and the benchmark's count)."""

    async def current(self) -> Rendered:
        """The board now, rendered (again only if the feed's revision moved on)."""
        revision, board = await self.feed.current()
        return self._for(revision, board)

    async def changes(self) -> AsyncIterator[Rendered]:
        """The board now, then each new revision, rendered (forever: the reader ends it)."""
        async for revision, board in self.feed.changes():
            yield self._for(revision, board)

    def _for(self, revision: int, board: Board) -> Rendered:
        rendered = self._rendered
        if rendered is None or rendered.revision != revision:
            rendered = self._rendered = self._render(revision, board)
            self.renders += 1
        return rendered

    def _render(self, revision: int, board: Board) -> Rendered:
        table = Markup(self._templates.get_template("board_table.html").render(
            rows=board.rows))
        page = self._templates.get_template("board.html").render(
            contest=self._contest, phase=board.phase, me=None, table=table).encode()
        etag = f'"{hashlib.blake2b(page, digest_size=12).hexdigest()}"'
        event = ServerSentEvent(data=str(table), event="board").encode()
        return Rendered(revision, table, page, etag, event)


def cached_page(request: Request, rendered: Rendered) -> Response:
    """The cached page, or ``304 Not Modified`` when the reader already has it."""
    headers = {**HEADERS, "ETag": rendered.etag}
    if _matches(request.headers.get("if-none-match"), rendered.etag):
        return Response(status_code=304, headers=headers)
    return Response(rendered.page, media_type="text/html", headers=headers)


def _matches(if_none_match: str | None, etag: str) -> bool:
    """RFC 9110's If-None-Match test: ``*`` or any listed tag, compared weakly (a ``W/``
    prefix ignored). Starlette does this only inside its StaticFiles, for files."""
    if if_none_match is None:
        return False
    tags = [tag.strip() for tag in if_none_match.split(",")]
    return "*" in tags or any(tag.removeprefix("W/") == etag for tag in tags)
