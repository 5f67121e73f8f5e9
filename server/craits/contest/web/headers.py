"""Security headers on every answer of the contest's site (pages, streams and the API):
a Content-Security-Policy that lets a page run only the site's own scripts and styles, and the
headers that stop sniffing, framing and leaking addresses to other sites.

**The policy, and why hashes rather than nonces.** The contest's own pages load their script
and their styles from the site (``/static/...``, ``'self'``), with no inline script and no
``style`` attribute. Two inline blocks remain, both from the static report and needed inline
there (a report page must open from disk alone, ``craits.report.viewer_page``): the report's
stylesheet (``STYLE``, also the first stylesheet of every contest page, so both look alike)
and the game viewer's script (``VIEWER_JS``). Both are constants, inserted verbatim, so the
policy allows exactly them by their SHA-256 (``'sha256-...'``): a nonce would need a fresh
value per request threaded through the report's page builder, and would allow any inline
script that carried it, where a hash allows only these bytes. A name or a move that managed
to inject markup still could not run a script, load one from elsewhere, or send data to
another site (``connect-src 'self'``, ``form-action 'self'``).

Why a small ASGI middleware and not a library: four constant headers added to each answer's
start is all there is to it, and the project has no headers library to reuse.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Final

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from craits.report.assets import STYLE, VIEWER_JS


def inline_hash(text: str) -> str:
    """A CSP source allowing the inline ``<script>`` or ``<style>`` whose text is ``text``."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


CSP: Final = "; ".join([
    "default-src 'none'",
    f"script-src 'self' {inline_hash(VIEWER_JS)}",
    f"style-src 'self' {inline_hash(STYLE)}",
    "img-src 'self'",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
])
"""What a page may load and run (module doc)."""

HEADERS: Final = (
    ("Content-Security-Policy", CSP),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "same-origin"),
    ("X-Frame-Options", "DENY"),
)
"""Added to every answer: the policy; no guessing of content types (a bot's log is never run
as a script); an address (a live game's, a bot's) never sent to another site as a referrer;
and framing refused (``frame-ancestors`` for current browsers, ``X-Frame-Options`` for old
ones), so no site can overlay the sign-in form."""


class SecurityHeaders:
    """ASGI middleware: ``HEADERS`` on every HTTP answer, without replacing one already set."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS:
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)
