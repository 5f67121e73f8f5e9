"""Hidden information stays hidden from spectators of a live game (issue 32): a raw HTTP client
(as a contestant's bot could be) reads every live page and stream, the TV's page and stream,
the board and the API while a game is played, and none of it carries a card of a deal or a
draw (another seat's hidden cards) before the end; after the end the game's own page shows
the whole hands. The check is shown to catch an unredacted feed (the control), and the stream
to carry every public event, in order, whether read from the first move or joined midway.

The organiser's view of the same game (``/organiser/live/KEY`` and its stream) is refused
(403) to the raw client, signed in as a contestant or not, and what the refusals say carries
no card either; signed in with the organiser's token, the stream carries every event as it
is, hands and draws included (so the check above would find them there)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from craits.contest.ladderstore import game_replay
from craits.contest.live import SPECTATOR, public_step
from craits.contest.organiser import new_organiser_token
from craits.contest.web.signin import COOKIE
from craits.engine import Rules
from craits.tournament.store.game_records import rebuild
from craits.tournament.store.record_codec import decode
from craits.words import Voice, describe_all
from tests.hidden_cards import hidden_forms, leaks
from tests.live_streams import read_stream

from ..server import Served, make_contest, serving
from .data import rated_version
from .live_data import start_live

pytestmark = pytest.mark.slow  # a real server, a game played in real time

NAMES = ["alice v1", "bob v1"]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Served, dict[str, str]]]:
    tokens = make_contest(tmp_path / "cup", names=("alice", "bob"))
    with serving(tmp_path / "cup") as served:
        yield served, tokens


def test_a_spectator_sees_no_hidden_card_before_the_end(
        served: tuple[Served, dict[str, str]]) -> None:
    site, tokens = served
    store = site.contest.store
    organiser = {COOKIE: new_organiser_token(store)}
    contestant = {COOKIE: tokens["alice"]}
    alice, bob = store.contestants()
    a1, b1 = rated_version(store, alice.id, "a1"), rated_version(store, bob.id, "b1")
    thread, out = start_live(site, [a1.id, b1.id], NAMES, seed=11, delay=0.005)
    bodies: list[str] = []
    first: list[str] = []
    first_steps: list[dict[str, object]] = []
    joined: list[str] = []
    joined_steps: list[dict[str, object]] = []
    whole: list[str] = []
    whole_steps: list[dict[str, object]] = []
    tv: list[str] = []
    tv_steps: list[dict[str, object]] = []
    refused: list[int] = []
    with httpx.Client(base_url=site.url, timeout=30) as client, \
            httpx.Client(base_url=site.url, timeout=30, cookies=contestant) as signed, \
            httpx.Client(base_url=site.url, timeout=30, cookies=organiser) as boss:
        for _ in range(200):  # until the game is listed
            listing = client.get("/live").text
            if "/live/" in listing:
                break
        key = listing.split('href="/live/')[1].split('"')[0]
        readers = [threading.Thread(target=read_stream, args=(
            f"{site.url}/live/{key}/events", first, first_steps))]
        readers[0].start()
        readers.append(threading.Thread(target=read_stream, args=(
            f"{site.url}/organiser/live/{key}/events", whole, whole_steps, organiser)))
        readers[1].start()
        readers.append(threading.Thread(target=read_stream, args=(  # the TV, to this end
            f"{site.url}/tv/events", tv, tv_steps)))
        readers[2].start()
        organiser_page = boss.get(f"/organiser/live/{key}").text
        pages = 0
        while "done" not in out:
            for path in ("/live", f"/live/{key}", "/tv", "/", "/api/v1/standings",
                         f"/bots/{alice.id}", "/phases"):
                response = client.get(path)
                if "done" in out:  # the game may have ended meanwhile: not "before the end"
                    break
                bodies.append(response.text + json.dumps(dict(response.headers)))
                pages += 1
            for path in ("/organiser", f"/organiser/live/{key}",
                         f"/organiser/live/{key}/events"):  # the organiser's, refused
                for who in (client, signed):
                    response = who.get(path)
                    refused.append(response.status_code)
                    bodies.append(response.text + json.dumps(dict(response.headers)))
            if len(readers) == 3 and pages > 12:  # a second reader joins midway
                readers.append(threading.Thread(target=read_stream, args=(
                    f"{site.url}/live/{key}/events", joined, joined_steps)))
                readers[3].start()
        thread.join(timeout=60)
        for reader in readers:
            reader.join(timeout=60)
        _, game_id = out["done"]
        after = client.get(f"/games/{game_id}").text
    assert pages > 12 and len(readers) == 4
    assert refused and set(refused) == {403}

    replay = game_replay(store, game_id)
    assert replay is not None
    full = rebuild(Rules.from_json(replay.rules_json), 2, replay.seed,
                   decode(replay.record)).game.events
    forms = hidden_forms(full, NAMES)
    assert len(forms) > 20  # the deals and the draws of a whole game
    streamed = [e for step in first_steps for e in step["events"]]  # type: ignore[attr-defined]
    assert streamed == [e.seen_by(SPECTATOR).to_dict() for e in full]  # every public event
    assert not any(e.get("private") and "cards" in e for e in streamed)
    assert [s["i"] for s in joined_steps] == list(range(len(first_steps)))  # from the first
    assert tv_steps == first_steps  # the TV: the same public steps, after its game event
    assert next(line for line in tv if line.startswith("event: ")) == "event: game"
    assert [line for line in first if line.startswith("event: end")] == ["event: end"]
    assert leaks(["\n".join(first), "\n".join(joined), "\n".join(tv), *bodies], forms) == []
    assert leaks([after], forms)  # once over, the game's page shows the whole hands
    # the organiser's stream: every event as it is, from the first, and so the hidden cards
    assert [e for step in whole_steps for e in step["events"]] == [  # type: ignore[attr-defined]
        e.to_dict() for e in full]
    assert leaks(["\n".join(whole)], forms) and leaks([organiser_page], forms)


def test_the_check_catches_an_unredacted_feed() -> None:
    """The control: the same check over a stream that sent the events unredacted (the live
    module's own step, given the seat's view instead of the spectator's) finds the cards."""
    from craits.engine import Game

    game = Game.new(Rules(), 2, 5)
    events = game.events
    forms = hidden_forms(events, NAMES)
    redacted = json.dumps(public_step(0, events, NAMES).to_dict())
    assert leaks([redacted], forms) == []
    unredacted = json.dumps({"i": 0, "events": [e.to_dict() for e in events],
                             "lines": describe_all(events, Voice(NAMES, past=True))})
    assert len(leaks([unredacted], forms)) >= 2 * 2  # each seat's deal, as JSON and in words
