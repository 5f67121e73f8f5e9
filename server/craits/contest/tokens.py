"""Contestants' tokens: made from 256 random bits, shown once, stored as a SHA-256 digest.

Why a plain SHA-256 and not a slow password hash (scrypt, argon2): a slow hash exists to make
guessing a *low-entropy* secret (a password a person chose) expensive after the database leaks.
A token here is 256 bits from ``secrets``: nobody can enumerate 2**256 candidates whatever the
hash costs, so slowness buys nothing. It would cost a lot: every API call is authenticated, and
scrypt at a safe setting takes tens of milliseconds of CPU, which anyone could make the server
spend by sending made-up tokens. And with a fast, unsalted digest the store finds a contestant by
an index lookup on the digest, never comparing secrets in Python (no timing to measure). A leaked
database therefore reveals no token, and a token is never written anywhere but the organiser's
terminal (or the registration answer).
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Final

PREFIX: Final = "cct_"
"""Marks a Craits contest token, so one pasted in the wrong place is recognisable (and secret
scanners can be told the pattern)."""
ORGANISER_PREFIX: Final = "cco_"
"""Marks the organiser's token (``organiser.py``): it shows everything, so it should be
told apart from a contestant's at a glance."""
TOKEN_BYTES: Final = 32


def new_token(prefix: str = PREFIX) -> str:
    """A fresh token: the prefix and 256 random bits, URL-safe base64."""
    return prefix + secrets.token_urlsafe(TOKEN_BYTES)


def token_digest(token: str) -> str:
    """What the store keeps of ``token``: its SHA-256, hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()
