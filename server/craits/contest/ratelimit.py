"""The upload rate limit: at most ``per_window`` uploads per contestant in any sliding window.

Counted from the store's ``uploads`` rows (every upload, refused ones too: each cost the server
an unpack), so the limit survives a restart and nobody resets it by making the service crash.
Pure: the caller passes the times and ``now``, so the tests run on made-up clocks.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .config import UploadLimits


@dataclass(frozen=True, slots=True)
class RateLimited:
    """An upload refused for now: how long to wait, and the message that says so."""

    retry_after_s: int
    message: str


def check_rate(times: Sequence[float], now: float, limits: UploadLimits) -> RateLimited | None:
    """None if one more upload at ``now`` is allowed after those at ``times`` (all within the
    window, oldest first), else when the oldest of them leaves the window."""
    recent = [t for t in times if t > now - limits.window_s]
    if len(recent) < limits.per_window:
        return None
    frees_at = recent[len(recent) - limits.per_window] + limits.window_s
    wait = max(1, math.ceil(frees_at - now))
    return RateLimited(wait, f"too many uploads: at most {limits.per_window} in "
                       f"{limits.window_minutes} minutes; the next one is accepted in {wait} s")
