"""The contest's pages in headless Chromium over a real server on a free loopback port and a real
SQLite store: the leaderboard renders and changes while it is open when a game is recorded (the
SSE feed), a bot's page draws its rating plot, and signing in shows an owner their logs and
faults, and another contestant none of them. The screenshots made here are docs/contests.md's
("Pages")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from craits.contest.verdicts import record_refit
from craits.contest.web.board import TREND_S

from ..server import Served, contest
from .browser import Browser, browser, shots
from .data import new_version, play_game, rated_version

pytestmark = pytest.mark.slow  # a real server and a real browser

__all__ = ["browser", "contest"]  # the fixtures


def board_cells(browser: Browser) -> list[list[str]]:
    rows = browser.js("[...document.querySelectorAll('#board tbody tr')].map("
                      "tr => [...tr.cells].map(td => td.innerText.trim()))")
    assert isinstance(rows, list)
    return rows


def test_the_leaderboard_changes_while_open(contest: tuple[Served, dict[str, str]],
                                           browser: Browser, tmp_path: Path) -> None:
    served, _ = contest
    store = served.contest.store
    alice, bob, carol = store.contestants()
    a1, b1 = rated_version(store, alice.id, "a1"), rated_version(store, bob.id, "b1")
    new_version(store, carol.id, "c1")
    play_game(store, [a1.id, b1.id], seed=1)
    published = store.standings()
    # two hours ago the leader's version was rated 30 lower: its trend is +30, the other's none
    record_refit(store, [{**published[0], "rating": published[0]["rating"] - 30}], {},
                 served.contest.clock() - 2 * TREND_S)
    browser.open(served.url + "/")
    before = board_cells(browser)
    assert len(published) == 2
    assert [[*r[:3], r[5], r[6]] for r in before[:2]] == [
        [str(r["rank"]), r["contestant"], f"v{r['version']}", str(r["games"]), r["status"]]
        for r in published]
    assert [r[7] for r in before] == ["+30", "—", "—"]
    assert before[2] == ["", "carol", "v1", "—", "—", "0", "validating", "—"]
    browser.wait_for("document.body.dataset.boardUpdates === '1'")  # the stream is open
    browser.screenshot(shots(tmp_path) / "contest-board.png")

    play_game(store, [a1.id, b1.id], seed=2)  # a game finishes while the page is open
    browser.wait_for("document.body.dataset.boardUpdates === '2'")
    after = board_cells(browser)
    assert [r[5] for r in after[:2]] == ["2", "2"]
    assert browser.js("location.href") == served.url + "/"  # updated in place, not reloaded


def test_a_bots_page_draws_its_rating_plot(contest: tuple[Served, dict[str, str]],
                                           browser: Browser, tmp_path: Path) -> None:
    served, _ = contest
    store = served.contest.store
    alice, bob, carol = store.contestants()
    a1, a2 = rated_version(store, alice.id, "a1"), rated_version(store, alice.id, "a2")
    b1, c1 = rated_version(store, bob.id, "b1"), rated_version(store, carol.id, "c1")
    for seed in range(6):
        play_game(store, [a1.id, b1.id, c1.id] if seed % 2 else [a2.id, b1.id], seed)
    browser.open(f"{served.url}/bots/{alice.id}")
    lines = browser.js("[...document.querySelectorAll('#ratings svg polyline')].map("
                       "p => [p.textContent, p.getAttribute('points').split(' ').length])")
    assert sorted(name for name, _ in lines) == ["v1", "v2"]
    assert all(points == 7 for _, points in lines)  # before any game, then after each of 6
    assert len(board_cells(browser)) == 0  # the board is not on this page
    recent = browser.js("document.querySelectorAll('#recent tbody tr').length")
    assert recent == 6
    browser.screenshot(shots(tmp_path) / "contest-bot.png")


def sign_in(browser: Browser, url: str, token: str) -> None:
    browser.open(url + "/signin")
    browser.js(f"document.getElementById('token').value = {json.dumps(token)};"
               "document.querySelector('form[action=\"/signin\"]').submit()")
    browser.wait_for("location.pathname.startsWith('/bots/')")
    browser.wait_for("document.readyState === 'complete'")


def test_the_owner_sees_logs_and_faults_and_another_does_not(
        contest: tuple[Served, dict[str, str]], browser: Browser, tmp_path: Path) -> None:
    served, tokens = contest
    store = served.contest.store
    alice, _, _ = store.contestants()
    a1 = rated_version(store, alice.id, "a1", log="conformance: 40/40 positions passed")
    store.add_fault(a1.id, "timed out at decision 17", 1.0, game="5")

    sign_in(browser, served.url, tokens["alice"])
    assert browser.js("location.pathname") == f"/bots/{alice.id}"
    owner = browser.text("#owner")
    assert "conformance: 40/40 positions passed" in owner
    assert "timed out at decision 17" in owner
    assert "craits_token" not in browser.js("document.cookie")  # HttpOnly: no script reads it
    browser.screenshot(shots(tmp_path) / "contest-owner.png")

    browser.js("document.querySelector('form[action=\"/signout\"]').submit()")
    browser.wait_for("location.pathname === '/' && document.readyState === 'complete'")
    sign_in(browser, served.url, tokens["bob"])
    browser.open(f"{served.url}/bots/{alice.id}")
    assert browser.text("#me") == "bob"
    html = browser.js("document.documentElement.outerHTML")
    assert "conformance: 40/40" not in html and "timed out at decision 17" not in html
    assert browser.js("document.getElementById('owner')") is None
    assert browser.js("document.getElementById('bot-file')") is None
