"""Security headers on every answer of a real contest server (pages, streams, static files,
the API, errors): the Content-Security-Policy, nosniff, the referrer policy and no framing. The
contest's pages have no inline script and no style attribute, and the two inline blocks the
report's viewer needs are allowed by their hashes, which a browser checks: the policy blocks an
injected inline script (the control) and nothing the pages themselves run."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from craits.contest.web.headers import CSP, inline_hash

from ..server import Served, make_contest, serving
from .browser import Browser
from .data import play_game, rated_version

pytestmark = pytest.mark.slow  # a real server (and a real browser for the control)

WANTED = {"content-security-policy": CSP, "x-content-type-options": "nosniff",
          "referrer-policy": "same-origin", "x-frame-options": "DENY"}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Served, int, int]]:
    make_contest(tmp_path / "cup", names=("alice", "bob"))
    with serving(tmp_path / "cup") as served:
        store = served.contest.store
        alice, bob = store.contestants()
        a1, b1 = rated_version(store, alice.id, "a1"), rated_version(store, bob.id, "b1")
        yield served, alice.id, play_game(store, [a1.id, b1.id], seed=3)


def test_every_answer_carries_the_headers(served: tuple[Served, int, int]) -> None:
    site, alice, game = served
    paths = ["/", "/phases", "/live", f"/bots/{alice}", f"/games/{game}", "/signin",
             "/results", "/organiser", "/live/nope", "/nowhere", "/static/live.js",
             "/static/site.css", "/api/v1/standings", "/openapi.json"]
    with httpx.Client(base_url=site.url, timeout=30) as client:
        answers = {path: client.get(path) for path in paths}
        with client.stream("GET", "/board/events") as stream:  # a stream's headers too
            answers["/board/events"] = stream
    assert answers["/organiser"].status_code == 403
    assert answers["/board/events"].headers["cache-control"] == "no-store"  # sse.event_stream
    assert answers["/nowhere"].status_code == 404
    for path, answer in answers.items():
        got = {name: answer.headers.get(name) for name in WANTED}
        assert got == WANTED, path
    assert "frame-ancestors 'none'" in CSP and "default-src 'none'" in CSP
    assert "'unsafe-inline'" not in CSP and "'unsafe-eval'" not in CSP

    for path in ["/", "/phases", "/live", f"/bots/{alice}", "/signin"]:
        html = answers[path].text
        scripts = re.findall(r"<script([^>]*)>", html)
        assert all("src=" in attrs or "application/json" in attrs for attrs in scripts), path
        assert " style=" not in html, path
    viewer = answers[f"/games/{game}"].text  # the report's page: inline, allowed by hash
    inline = re.findall(r"<script>(.*?)</script>", viewer, re.S)
    styles = re.findall(r"<style>(.*?)</style>", viewer, re.S)
    assert len(inline) == 1 and len(styles) == 1
    assert inline_hash(inline[0]) in CSP and inline_hash(styles[0]) in CSP
    board_style = re.findall(r"<style>(.*?)</style>", answers["/"].text, re.S)
    assert [inline_hash(s) in CSP for s in board_style] == [True]


def test_a_browser_blocks_an_injected_inline_script(served: tuple[Served, int, int],
                                                    tmp_path: Path) -> None:
    """The control for the browser tests' check that no page's own script is blocked: an
    inline script put into a page is reported, and does not run."""
    site, alice, _ = served
    browser = Browser(tmp_path / "profile")
    try:
        browser.open(f"{site.url}/bots/{alice}")
        assert browser.csp_violations() == []
        browser.js("const s = document.createElement('script');"
                   "s.textContent = 'document.body.dataset.ran = \"1\"';"
                   "document.body.append(s)")
        browser.wait_for("JSON.parse(sessionStorage.getItem('csp-violations') || '[]')"
                         ".length > 0")
        assert browser.js("document.body.dataset.ran") is None
        assert browser.csp_violations() == [f"/bots/{alice}: script-src-elem blocked inline"]
    finally:
        browser.close()
