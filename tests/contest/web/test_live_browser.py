"""A live game's page in headless Chromium: listed on ``/live`` while it is played, its page
shows moves arriving (the SSE stream appends them in place, without a reload), then the end
with a link to the whole game."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import httpx
import pytest

from ..server import Served, contest
from .browser import Browser, browser, shots
from .data import rated_version
from .live_data import start_live

pytestmark = pytest.mark.slow  # a real server, a real browser, a game played in real time

__all__ = ["browser", "contest"]  # the fixtures


def _shows_the_end(browser: Browser, game: threading.Thread,
                   out: dict[str, tuple[str, int]]) -> None:
    """The page says the game is over, linking the game ``start_live``'s thread recorded."""
    browser.wait_for("document.body.dataset.liveEnded === '1'", timeout=60)
    game.join(timeout=60)
    _, game_id = out["done"]
    assert browser.js("document.querySelector('#state a').getAttribute('href')") == \
        f"/games/{game_id}"


def test_a_live_game_page_shows_moves_arriving(contest: tuple[Served, dict[str, str]],
                                              browser: Browser, tmp_path: Path) -> None:
    served, _ = contest
    store = served.contest.store
    alice, bob, _ = store.contestants()
    a1, b1 = rated_version(store, alice.id, "a1"), rated_version(store, bob.id, "b1")
    thread, out = start_live(served, [a1.id, b1.id], ["alice v1", "bob v1"], seed=12,
                             delay=0.03)
    # The list is a plain page (no script): open it once the game is being played, or it
    # may be rendered before the game starts and stay empty.
    deadline = time.monotonic() + 30
    while "/live/" not in httpx.get(served.url + "/live").text:
        assert time.monotonic() < deadline, "the game was never listed"
        time.sleep(0.05)
    browser.open(served.url + "/live")
    browser.wait_for("document.querySelector('#live a') !== null")
    assert "alice v1, bob v1" in browser.text("#live")
    browser.js("document.querySelector('#live a').click()")
    browser.wait_for("location.pathname.startsWith('/live/') && "
                     "document.readyState === 'complete'")
    browser.wait_for("Number(document.body.dataset.liveSteps || 0) > 0")
    seen = browser.js("Number(document.body.dataset.liveSteps)")
    lines = browser.js("document.querySelectorAll('#moves li').length")
    browser.wait_for(f"Number(document.body.dataset.liveSteps) > {seen} + 3")
    assert browser.js("document.querySelectorAll('#moves li').length") > lines
    assert browser.js("location.pathname").startswith("/live/")  # in place, not reloaded
    browser.screenshot(shots(tmp_path) / "contest-live.png")
    _shows_the_end(browser, thread, out)


def test_the_tv_follows_one_game_then_the_next_in_place(
        contest: tuple[Served, dict[str, str]], browser: Browser, tmp_path: Path) -> None:
    """``/tv`` shows the game being played, its moves arriving, then its end; the next game
    takes its place on the same page (no reload), under its seats' names, from its first
    move. (Joining a game under way when the watched one ends is tested on virtual time in
    ``test_live_tv.py``; here the next game starts once the first is over, so that which
    game is newest never depends on the two games' pace.)"""
    served, _ = contest
    store = served.contest.store
    alice, bob, cid = store.contestants()
    a1, b1 = rated_version(store, alice.id, "a1"), rated_version(store, bob.id, "b1")
    c1 = rated_version(store, cid.id, "c1")
    first, done = start_live(served, [a1.id, b1.id], ["alice v1", "bob v1"], seed=12,
                             delay=0.02)
    browser.open(served.url + "/tv")
    browser.wait_for("Number(document.body.dataset.liveSteps || 0) > 3")
    assert browser.text("#title") == "TV: alice v1, bob v1"
    first.join(timeout=60)
    browser.wait_for("document.body.dataset.liveEnded === '1'", timeout=60)
    assert "The next game follows" in browser.text("#state")
    second, later = start_live(served, [a1.id, c1.id], ["alice v1", "cid v1"], seed=13,
                               delay=0.01)  # the page is already following: a quick game
    browser.wait_for("document.body.dataset.tvGames === '2'", timeout=60)
    browser.wait_for("Number(document.body.dataset.liveSteps || 0) > 3")
    assert browser.text("#title") == "TV: alice v1, cid v1"
    assert browser.js("location.pathname") == "/tv"  # in place, not reloaded
    browser.screenshot(shots(tmp_path) / "contest-tv.png")
    _shows_the_end(browser, second, later)
    assert "done" in done
