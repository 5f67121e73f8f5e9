"""Signing in on the pages: the contestant's own token, or the organiser's (``organiser.py``),
kept by the browser in a cookie.

Why the token itself and not a session: the token is already the contestant's credential (256
random bits, stored only as a digest), so a cookie holding it adds no secret to the server, no
session table to lose on a restart, and signing out is deleting the cookie. The cookie is
``HttpOnly`` (no script of any page can read it), ``SameSite=Strict`` (no other site's page can
make the browser send it, so a form elsewhere cannot upload in a contestant's name) and
``Secure`` when the contest is served over TLS. The organiser signs in with the same form and
the same cookie: which token it holds says who it is (no contestant's digest matches the
organiser's token, and the organiser's pages ask ``organiser`` alone).
"""

from __future__ import annotations

from typing import Final

from starlette.requests import Request
from starlette.responses import Response

from ..organiser import is_organiser
from ..store import Contestant, ContestStore
from ..tokens import token_digest

COOKIE: Final = "craits_token"
MAX_AGE_S: Final = 30 * 24 * 3600


def signed_in(request: Request, store: ContestStore) -> Contestant | None:
    """The contestant whose token the request's cookie holds, if any."""
    token = request.cookies.get(COOKIE, "").strip()
    return store.contestant_by_digest(token_digest(token)) if token else None


def organiser(request: Request, store: ContestStore) -> bool:
    """Whether the request's cookie holds the organiser's token."""
    return is_organiser(store, request.cookies.get(COOKIE, "").strip())


def remember(response: Response, request: Request, token: str) -> None:
    """Set the sign-in cookie on ``response``."""
    response.set_cookie(COOKIE, token, max_age=MAX_AGE_S, path="/", httponly=True,
                        samesite="strict", secure=request.url.scheme == "https")


def forget(response: Response, request: Request) -> None:
    """Remove the sign-in cookie."""
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict",
                           secure=request.url.scheme == "https")
