"""The organiser's credential: one token that shows everything on the pages (every version's
logs, faults and reasons; the games in play with their hands), stored as a digest like a
contestant's (``tokens.py``: 256 random bits, SHA-256, shown once).

Why a command (``craits contest organiser-token DIR``) and not a token printed by ``init``:
``init`` writes only the configuration, before any store exists, and a token shown once is a
token that gets lost; a command that makes a new one whenever it runs is also how a lost or
leaked one is replaced (the old one stops working at once, even while the contest is served:
the digest is read from the store at each request). Why in the store's ``meta`` table and not
in ``contest.toml``: the file is edited, copied and shared by people, the store is not.

There is no organiser in the API: the organiser's commands work on the contest's directory
(``phase``, ``export``), and the token is for the pages only.
"""

from __future__ import annotations

import hmac
from typing import Final

from .store import ContestStore
from .tokens import ORGANISER_PREFIX, new_token, token_digest

ORGANISER_KEY: Final = "organiser_token"
"""``meta``: the SHA-256 digest of the organiser's token (absent: no organiser's view)."""


def new_organiser_token(store: ContestStore) -> str:
    """A new organiser's token, replacing any earlier one; shown once, kept as its digest."""
    token = new_token(ORGANISER_PREFIX)
    with store.transaction() as db:
        db.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE "
                   "SET value = excluded.value", (ORGANISER_KEY, token_digest(token)))
    return token


def is_organiser(store: ContestStore, token: str) -> bool:
    """Whether ``token`` is the organiser's current token."""
    if not token.startswith(ORGANISER_PREFIX):
        return False
    rows = store.read("SELECT value FROM meta WHERE key = ?", (ORGANISER_KEY,))
    return bool(rows) and hmac.compare_digest(str(rows[0][0]), token_digest(token))
