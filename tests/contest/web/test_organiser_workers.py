"""The organiser's live view when a table worker process plays the game (``craits contest serve
--workers 1``, real sandboxed bots): the worker sends each step whole beside the public one,
the service keeps them apart, and the organiser's stream of a game carries every event as it is
(checked against the recorded game), while the spectators' stream of the same game carries the
public events only and the organiser's stream is refused without the organiser's cookie."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import httpx
import pytest

from craits.contest.ladderstore import game_replay
from craits.contest.live import SPECTATOR
from craits.contest.organiser import new_organiser_token
from craits.contest.store import ContestStore
from craits.contest.versions import VersionState
from craits.contest.web.signin import COOKIE
from craits.engine import Rules
from craits.tournament.store.game_records import rebuild
from craits.tournament.store.record_codec import decode
from tests.live_streams import read_events

from ..processes import serve
from ..server import make_contest
from ..uploaded import add_version, wrapped

pytestmark = pytest.mark.slow  # a real service, a table worker and sandboxed bots


def test_a_workers_game_whole_for_the_organiser_public_for_spectators(tmp_path: Path) -> None:
    contest = tmp_path / "cup"
    make_contest(contest, names=("ann", "bob"))
    config = contest / "contest.toml"
    config.write_text(config.read_text().replace('preset = "standard"',
                                                 'preset = "standard"\nshort_game = true'))
    store = ContestStore.open(contest / "contest.db")
    for contestant, bot in ((1, "greedy"), (2, "random")):
        version = add_version(contest, store, contestant, wrapped(bot))
        store.set_state(version.id, VersionState.RATED, 0.0)
    organiser = {COOKIE: new_organiser_token(store)}

    with serve(contest, "--workers", "1") as server, \
            httpx.Client(base_url=server.url, timeout=60, cookies=organiser) as boss, \
            httpx.Client(base_url=server.url, timeout=60) as anyone:
        deadline = time.monotonic() + 120
        whole: list[dict[str, object]] = []
        while time.monotonic() < deadline:  # a game caught while it is played
            listing = boss.get("/organiser").text
            if 'href="/organiser/live/' not in listing:
                time.sleep(0.05)
                continue
            key = listing.split('href="/organiser/live/')[1].split('"')[0]
            public: dict[str, tuple[int, list[dict[str, object]], int | None]] = {}

            def spectate(into: dict[str, tuple[int, list[dict[str, object]], int | None]],
                         url: str) -> None:
                into["got"] = read_events(anyone, url)

            spectator = threading.Thread(target=spectate, args=(public, f"/live/{key}/events"))
            spectator.start()
            status, whole, game_id = read_events(boss, f"/organiser/live/{key}/events")
            spectator.join(timeout=60)
            if status == 200 and whole:  # a game that ended before the look reached its
                break                       # worker has no whole step: try the next one
        assert whole, "no game of the worker's was caught while played"
        refused = anyone.get(f"/organiser/live/{key}/events")
        assert refused.status_code == 403

    assert game_id is not None
    replay = game_replay(store, game_id)
    store.close()
    assert replay is not None
    full = rebuild(Rules.from_json(replay.rules_json), 2, replay.seed,
                   decode(replay.record)).game.events
    assert [e for s in whole for e in s["events"]] == [  # type: ignore[attr-defined]
        e.to_dict() for e in full]
    assert any(e.private and e.cards for e in full)  # hands and draws, which whole carries
    _, seen, public_game = public["got"]
    assert public_game == game_id
    assert [e for s in seen for e in s["events"]] == [  # type: ignore[attr-defined]
        e.seen_by(SPECTATOR).to_dict() for e in full]
