"""Bot tokens: how long they must be, and the hash the referee keeps instead of the token.

A token is the only thing that tells a bot's stream apart from anyone else's, so it must be
unguessable (at least 128 bits: ``MIN_CHARS`` characters of ``secrets.token_urlsafe``, which
is what the referee issues) and unique (two bots sharing one could take each other's seats).
The referee only needs to recognise a token, so it keeps its SHA-256: a stored tournament
configuration holds the hash, and someone who reads it cannot connect as the bot. One SHA-256
is enough for a random 128-bit secret (there is no dictionary to try), and lookup by hash keeps
the comparison free of timing that depends on the token.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterable
from typing import Final

MIN_CHARS: Final = 22
"""Base64url characters in 128 bits (6 bits each, rounded up): ``token_urlsafe(16)``."""
ISSUED_BYTES: Final = 18
"""Random bytes of a token the referee issues: 144 bits, 24 characters."""
_ALLOWED: Final = re.compile(r"[A-Za-z0-9_\-.~+/=]+")
HASH_PREFIX: Final = "sha256:"
ADVICE: Final = ("make one with: python3 -c 'import secrets; print(secrets.token_urlsafe(16))'")


class TokenError(ValueError):
    """A token given by the organiser is too short, has odd characters, or is not unique."""


def issue() -> str:
    """A fresh random token: hex, so it never starts with ``-`` and ``--token TOKEN`` always
    parses."""
    return secrets.token_hex(ISSUED_BYTES)


def digest(token: str) -> str:
    """What the referee keeps of ``token``: ``sha256:`` and its hex digest."""
    return HASH_PREFIX + hashlib.sha256(token.encode()).hexdigest()


def is_digest(text: str) -> bool:
    """Whether ``text`` is a ``digest`` (and not a token)."""
    hexpart = text.removeprefix(HASH_PREFIX)
    return text.startswith(HASH_PREFIX) and len(hexpart) == 64 and \
        all(c in "0123456789abcdef" for c in hexpart)


def check(token: str) -> None:
    """``TokenError`` unless ``token`` is long and plain enough to stand for a bot."""
    if not _ALLOWED.fullmatch(token):
        raise TokenError("a token is letters, digits and - _ . ~ + / = only; " + ADVICE)
    if len(token) < MIN_CHARS:
        raise TokenError(f"a token must be at least {MIN_CHARS} characters (128 random bits), "
                         f"this one has {len(token)}; " + ADVICE)


def check_unique(named: Iterable[tuple[str, str]]) -> None:
    """``TokenError`` naming the first two bots given the same token (pairs of name, token or
    digest; empty tokens are issued later and never clash)."""
    seen: dict[str, str] = {}
    for name, token in named:
        if not token:
            continue
        key = token if is_digest(token) else digest(token)
        if key in seen:
            raise TokenError(f"bots {seen[key]!r} and {name!r} have the same token; every bot "
                             "needs its own")
        seen[key] = name
