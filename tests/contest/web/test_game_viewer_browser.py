"""A ladder game's page in headless Chromium: once recorded, ``/games/ID`` is the static
report's viewer (its frames and script, shared), stepping through the game with every hand
shown, since the game is over; a game recorded without its seed and rules still shows its
result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from craits.contest.ladderstore import game_replay
from craits.engine import Game, Rules, format_cards

from ..server import Served, contest
from .browser import Browser, browser, shots
from .data import play_game, rated_version

pytestmark = pytest.mark.slow  # a real server and a real browser

__all__ = ["browser", "contest"]  # the fixtures


def test_a_ladder_game_opens_in_the_reports_viewer(contest: tuple[Served, dict[str, str]],
                                                  browser: Browser, tmp_path: Path) -> None:
    served, _ = contest
    store = served.contest.store
    alice, bob, _ = store.contestants()
    a1, b1 = rated_version(store, alice.id, "a1"), rated_version(store, bob.id, "b1")
    game_id = play_game(store, [a1.id, b1.id], seed=7)
    browser.open(f"{served.url}/games/{game_id}")
    browser.wait_for("document.getElementById('pos').textContent.startsWith('step 0/')")
    assert browser.text("h1") == f"Game {game_id}: alice v1, bob v1"
    replay = game_replay(store, game_id)
    assert replay is not None and replay.seed == 7
    dealt = Game.new(Rules(), 2, 7)
    for seat in range(2):  # the game is over: every hand is shown, from the deal on
        cards = browser.js(f"document.getElementById('seat-{seat}').dataset.cards")
        assert cards == format_cards(sorted(dealt.hands[seat]))
    browser.js("document.getElementById('next').click()")
    browser.wait_for("document.getElementById('pos').textContent.startsWith('step 1/')")
    assert "alice v1" in browser.text("#log") or "bob v1" in browser.text("#log")
    browser.screenshot(shots(tmp_path) / "contest-game.png")
    browser.js("document.getElementById('last').click()")
    browser.wait_for("document.getElementById('pos').textContent.includes('game over')")


def test_a_game_without_its_deal_shows_its_result(contest: tuple[Served, dict[str, str]],
                                                  browser: Browser) -> None:
    served, _ = contest
    store = served.contest.store
    alice, bob, _ = store.contestants()
    a1, b1 = rated_version(store, alice.id, "a1"), rated_version(store, bob.id, "b1")
    game_id = play_game(store, [a1.id, b1.id], seed=3)
    with store.transaction() as db:  # as a store from before seeds and rules were kept
        db.execute("DELETE FROM game_deals")
    browser.open(f"{served.url}/games/{game_id}")
    assert browser.js("document.getElementById('game-data')") is None
    rows = browser.js("document.querySelectorAll('#result tbody tr').length")
    assert json.dumps(rows) == "2"
