"""A live game watched while a table worker or a Ray actor plays it, as the organiser (every
card, asked of whatever plays the game) and as a spectator (public events only), and both
checked against the game the service recorded."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from craits.contest.ladderstore import game_replay
from craits.contest.live import SPECTATOR
from craits.contest.store import ContestStore
from craits.engine import Rules
from craits.tournament.store.game_records import rebuild
from craits.tournament.store.record_codec import decode
from tests.live_streams import read_events
from tests.waiting import until

Steps = list[dict[str, Any]]


@dataclass(frozen=True)
class Watched:
    """A live game watched to its end: its key on the live pages, the organiser's steps, the
    spectators' steps, and the id it was recorded as."""

    key: str
    whole: Steps
    public: Steps
    game: int


def watch_a_game(url: str, organiser: dict[str, str]) -> Watched:
    """A game caught while played: the organiser's whole steps (asked of what plays it once
    the organiser looks), then the spectators' steps of the same game; and the id the game was
    recorded as."""
    with httpx.Client(base_url=url, timeout=60, cookies=organiser) as boss, \
            httpx.Client(base_url=url, timeout=60) as anyone:
        for _ in range(100):
            listing = until(lambda: 'href="/organiser/live/' in (t := boss.get("/organiser").text)
                            and t, 120, "a live game listed for the organiser")
            key = listing.split('href="/organiser/live/')[1].split('"')[0]
            status, whole, game = read_events(boss, f"/organiser/live/{key}/events")
            # A short game can end where it is played before the organiser's look reaches it:
            # its stream then ends with no whole step (the game is in the store); try the next.
            if status == 200 and game is not None and whole:
                status, public, same = read_events(anyone, f"/live/{key}/events")
                assert status == 200 and same == game
                return Watched(key, whole, public, game)
    raise AssertionError("no game was caught while played")


def check_watched(contest: Path, players: int, watched: Watched) -> None:
    """The organiser saw every event of the recorded game, spectators only the public ones."""
    store = ContestStore.open(contest / "contest.db")
    replay = game_replay(store, watched.game)
    store.close()
    assert replay is not None
    full = rebuild(Rules.from_json(replay.rules_json), players, replay.seed,
                   decode(replay.record)).game.events
    assert [e for step in watched.whole for e in step["events"]] == [e.to_dict() for e in full]
    assert any(e.private and e.cards for e in full)  # hands and draws: whole steps carry them
    assert [e for step in watched.public for e in step["events"]] == [
        e.seen_by(SPECTATOR).to_dict() for e in full]
