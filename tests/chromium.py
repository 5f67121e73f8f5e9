"""Headless Chromium for the tests that open pages in a real browser: where it is and the flags
every run takes (the report's one-shot ``--dump-dom`` and the contest's DevTools-driven tab).

Chromium is required, not optional: CI installs it (``.ci/setup``) and a missing browser fails
the test rather than skipping it, so no page's scripts can silently go untested.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")
"""No sandbox (tests may run as root in a container), nothing fetched from the network."""


def chromium() -> str:
    """The browser, or a failure that says how to get it."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None and Path("/usr/bin/chromium").exists():
        path = "/usr/bin/chromium"
    if path is None:
        pytest.fail("chromium is not installed: run .ci/setup (apt-get install -y chromium)")
    return path
