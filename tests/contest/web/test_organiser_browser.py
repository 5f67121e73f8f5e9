"""The organiser's view in headless Chromium over a real server: signed in with the organiser's
token, the overview lists every contestant's versions, any bot's page shows its logs and faults
(but no upload form: the organiser is not its owner), and a game being played shows every hand
as it is dealt; a contestant signed in sees none of another's logs (the pages' test) and gets
403 on the organiser's pages. The screenshots are docs/contests.md's."""

from __future__ import annotations

from pathlib import Path

import pytest

from craits.contest.organiser import new_organiser_token

from ..server import Served, contest
from .browser import Browser, browser, shots
from .data import rated_version
from .live_data import start_live

pytestmark = pytest.mark.slow  # a real server, a real browser, a game played in real time

__all__ = ["browser", "contest"]  # the fixtures

DEALT_CARDS = r"/ was dealt ([2-9TJQKA][CDHS] )+[2-9TJQKA][CDHS]$/"
"""A line of the organiser's live page naming a dealt hand's cards (spectators read 'was dealt
8 cards')."""


def sign_in(browser: Browser, url: str, token: str, lands: str) -> None:
    browser.open(url + "/signin")
    browser.js(f"document.getElementById('token').value = {token!r};"
               "document.querySelector('form[action=\"/signin\"]').submit()")
    browser.wait_for(f"location.pathname === {lands!r} && document.readyState === 'complete'")


def test_the_organiser_sees_everyones_logs_and_every_hand(
        contest: tuple[Served, dict[str, str]], browser: Browser, tmp_path: Path) -> None:
    served, tokens = contest
    store = served.contest.store
    alice, bob, _ = store.contestants()
    a1 = rated_version(store, alice.id, "a1", log="conformance: 40/40 positions passed")
    store.add_fault(a1.id, "timed out at decision 17", 1.0, game="5")
    b1 = rated_version(store, bob.id, "b1", log="bob's validation log")
    organiser = new_organiser_token(store)

    sign_in(browser, served.url, tokens["bob"], f"/bots/{bob.id}")  # a contestant first
    browser.open(f"{served.url}/organiser")
    assert "sign in with the organiser's token" in browser.text("#error")
    browser.open(f"{served.url}/bots/{alice.id}")
    assert browser.js("document.getElementById('owner')") is None
    browser.js("document.querySelector('form[action=\"/signout\"]').submit()")
    browser.wait_for("location.pathname === '/' && document.readyState === 'complete'")

    thread, out = start_live(served, [a1.id, b1.id], ["alice v1", "bob v1"], seed=13,
                             delay=0.03)
    sign_in(browser, served.url, organiser, "/organiser")
    assert browser.text("#me") == "organiser"
    assert "craits_token" not in browser.js("document.cookie")  # HttpOnly as for contestants
    rows = browser.js("[...document.querySelectorAll('#versions tbody tr')].map("
                      "tr => [...tr.cells].map(td => td.innerText.trim()))")
    assert ["alice", "v1", "rated", "1", ""] in rows and ["bob", "v1", "rated", "0", ""] in rows
    browser.wait_for("document.querySelector('#live a') !== null")
    browser.screenshot(shots(tmp_path) / "contest-organiser.png")

    browser.open(f"{served.url}/bots/{alice.id}")
    owner = browser.text("#owner")
    assert "conformance: 40/40 positions passed" in owner and "timed out at decision 17" in owner
    assert browser.js("document.getElementById('bot-file')") is None  # not the owner
    browser.open(f"{served.url}/bots/{bob.id}")
    assert "bob's validation log" in browser.text("#owner")

    browser.open(f"{served.url}/organiser")
    browser.wait_for("document.querySelector('#live a') !== null")
    browser.js("document.querySelector('#live a').click()")
    browser.wait_for("location.pathname.startsWith('/organiser/live/') && "
                     "document.readyState === 'complete'")
    hands = f"[...document.querySelectorAll('#moves li')].filter(li => {DEALT_CARDS}" \
            ".test(li.textContent)).length"
    browser.wait_for(f"{hands} >= 2")  # each seat's hand, cards named
    browser.wait_for("Number(document.body.dataset.liveSteps || 0) > 3")  # and moves arrive
    browser.screenshot(shots(tmp_path) / "contest-organiser-live.png")
    key = browser.js("location.pathname").removeprefix("/organiser/live/")
    browser.open(f"{served.url}/live/{key}")  # the spectators' page of the same game
    assert browser.js(hands) == 0
    thread.join(timeout=60)
    assert "done" in out
