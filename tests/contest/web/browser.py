"""Headless Chromium driven over the DevTools protocol on a pipe, for pages that change while
they are open (``--dump-dom`` reads a page once, after it loads: it cannot see a leaderboard
update that arrives later over Server-Sent Events).

``--remote-debugging-pipe`` makes Chromium read commands on its fd 3 and write answers on fd 4,
each a JSON message ended by a NUL byte: no port, no WebSocket, nothing to install. The flags
are those of every test's Chromium (``tests/chromium.py``).

Every document the tab opens records the Content-Security-Policy violations it reports (the
``securitypolicyviolation`` event, which fires for each blocked script, style or connection) in
the tab's ``sessionStorage``, so they add up across the pages of one origin and a test can
ask for them at its end (``csp_violations``): a policy that blocked a page's own script would
otherwise show only as a page that quietly does less.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.chromium import FLAGS, chromium

DOC_IMAGES = Path(__file__).resolve().parents[3] / "docs" / "images"


def shots(tmp_path: Path) -> Path:
    """Where the screenshots go: docs/images/ when ``CRAITS_DOC_SCREENSHOTS=1`` (to refresh the
    ones the docs show), else the test's own directory, so that an ordinary run leaves the
    checkout as it found it."""
    if os.environ.get("CRAITS_DOC_SCREENSHOTS") == "1":
        return DOC_IMAGES
    return tmp_path


CSP_WATCH = """
window.addEventListener("securitypolicyviolation", (e) => {
  const seen = JSON.parse(sessionStorage.getItem("csp-violations") || "[]");
  seen.push(`${location.pathname}: ${e.violatedDirective} blocked ${e.blockedURI}`);
  sessionStorage.setItem("csp-violations", JSON.stringify(seen));
});
"""
"""Run in every new document before its own scripts (module doc)."""


class Browser:
    """One Chromium with one tab; ``close`` ends it."""

    def __init__(self, profile: Path, width: int = 1000, height: int = 700) -> None:
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # The browser's fd 3 reads commands, fd 4 writes answers: bash moves the pipes there and
        # execs it (bash: dash's redirections take one-digit descriptors only). Not a
        # preexec_fn: the test process has gRPC's threads, and running Python in the child of a
        # threaded process's fork is what the subprocess docs warn of.
        move = f'exec "$0" "$@" 3<&{to_browser_r} 4>&{from_browser_w} ' \
               f'{to_browser_r}<&- {from_browser_w}>&-'
        self._proc = subprocess.Popen(
            ["bash", "-c", move, chromium(), *FLAGS, f"--user-data-dir={profile}",
             "--remote-debugging-pipe", f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(to_browser_r, from_browser_w))
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self._session = self.call("Target.attachToTarget", targetId=target,
                                  flatten=True)["sessionId"]
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width,
                  height=height, deviceScaleFactor=1, mobile=width < 600)
        self.call("Page.enable", session=True)  # for the script below to run in each page
        self.call("Page.addScriptToEvaluateOnNewDocument", session=True, source=CSP_WATCH)

    def call(self, method: str, session: bool = False, **params: Any) -> dict[str, Any]:
        """Send one command and wait for its answer (events in between are dropped)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self._session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self._buffer:
                chunk = os.read(self._from_browser, 1 << 16)
                assert chunk, "chromium closed its DevTools pipe"
                self._buffer += chunk
            raw, self._buffer = self._buffer.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self._next_id:
                assert "error" not in answer, answer["error"]
                result: dict[str, Any] = answer["result"]
                return result

    def open(self, url: str) -> None:
        """Load ``url`` and wait until its document is complete."""
        self.call("Page.navigate", session=True, url=url)
        self.wait_for("document.readyState === 'complete' && location.href !== 'about:blank'")

    def js(self, expression: str) -> Any:
        """The value of ``expression`` in the page."""
        result = self.call("Runtime.evaluate", session=True, expression=expression,
                           returnByValue=True)["result"]
        return result.get("value")

    def wait_for(self, expression: str, timeout: float = 20.0) -> None:
        """Wait until ``expression`` is true in the page."""
        deadline = time.monotonic() + timeout
        while not self.js(expression):
            assert time.monotonic() < deadline, f"never true: {expression}"
            time.sleep(0.1)

    def text(self, selector: str) -> str:
        """The visible text of the first element matching ``selector`` ('' if none)."""
        value = self.js(f"(document.querySelector({json.dumps(selector)}) || {{}}).innerText")
        return value or ""

    def csp_violations(self) -> list[str]:
        """The policy violations reported so far by this origin's pages in the tab."""
        found = self.js("JSON.parse(sessionStorage.getItem('csp-violations') || '[]')")
        assert isinstance(found, list)
        return [str(v) for v in found]

    def screenshot(self, path: Path) -> None:
        """A PNG of the whole page."""
        height = self.js("document.documentElement.scrollHeight")
        data = self.call("Page.captureScreenshot", session=True, format="png",
                         captureBeyondViewport=True,
                         clip={"x": 0, "y": 0, "width": self.js("innerWidth"),
                               "height": min(int(height), 2000), "scale": 1})["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        self._proc.terminate()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    """A browser for one test, which fails at its end if the pages' policy blocked anything."""
    b = Browser(tmp_path / "profile")
    try:
        yield b
        assert b.csp_violations() == []  # the policy blocked nothing the pages need
    finally:
        b.close()
