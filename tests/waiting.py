"""Waiting for real processes and servers: ask a condition again and again until it holds,
with a generous bound (the bound is a failure's limit, never a timing claim)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def until(what: Callable[[], Any], timeout: float, message: str, every: float = 0.5) -> Any:
    """``what()``'s first truthy value, asked every ``every`` seconds (half a second by default:
    a condition that runs a ``craits`` command costs a process each time); fails after
    ``timeout`` seconds saying ``message``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = what()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out: {message}")


def wait_until(check: Callable[[], object], timeout: float = 60.0) -> None:
    """Ask the cheap ``check`` (an HTTP request, a line read) every 20 ms until it is true."""
    until(check, timeout, "never happened", every=0.02)
