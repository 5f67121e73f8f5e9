"""The organiser's view: everything, behind the organiser's token (``craits.contest.organiser``).

Signed in with it (``/signin``, the same ``HttpOnly`` cookie as a contestant's), the organiser
sees on every bot's page what its owner sees (each version's reason, faults and logs), an
overview of every contestant's versions (``/organiser``), and the games being played with every
hand (``/organiser/live/KEY`` and its stream), without the spectators' delay. Every organiser's
URL answers 403 to anyone else, signed in as a contestant or not; the public pages never read
what only these show (the whole games are kept apart from the public ones,
``craits.contest.livewhole``).
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.exceptions import HTTPException
from starlette.requests import Request

from ..api import Contest
from ..live import LiveGame
from ..livewhole import OrganisedLiveGames
from ..store import Contestant, ContestStore, Version
from .signin import organiser

FORBIDDEN = "the organiser's view: sign in with the organiser's token (craits contest " \
    "organiser-token DIR makes one)"


def require_organiser(request: Request, store: ContestStore) -> None:
    """Pass for the organiser; 403 for anyone else."""
    if not organiser(request, store):
        raise HTTPException(403, FORBIDDEN)


def whole_game(contest: Contest, key: str) -> LiveGame:
    """Game ``key`` being played, every card of it (``livewhole``), its whole steps made from
    now on since the organiser looks at it (``OrganisedLiveGames.look``); 404 when it is not
    being played."""
    live = contest.live
    game = live.look(key) if isinstance(live, OrganisedLiveGames) else None
    if game is None:
        raise HTTPException(404, f"no game {key} being played: once over, a game's page "
                            f"shows it whole (/live/{key} links it)")
    return game


@dataclass(frozen=True, slots=True)
class VersionLine:
    """One version on the organiser's overview."""

    version: Version
    faults: int


@dataclass(frozen=True, slots=True)
class ContestantLines:
    """A contestant and their versions, newest first."""

    contestant: Contestant
    versions: tuple[VersionLine, ...]


def overview(store: ContestStore) -> list[ContestantLines]:
    """Every contestant's versions (newest first) with their state, reason and fault count."""
    faults = dict(store.read("SELECT version_id, COUNT(*) FROM faults GROUP BY version_id"))
    return [ContestantLines(c, tuple(VersionLine(v, int(faults.get(v.id, 0)))
                                     for v in store.versions_of(c.id)))
            for c in store.contestants()]
