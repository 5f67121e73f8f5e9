"""How long a search bot may think about one decision, from the clock the referee gives it.

The referee allows ``move_ms`` per decision and a per-game bank that slow decisions draw on;
a decision that overruns both is a strike. A searching bot therefore spends a fixed share of
``move_ms`` (the rest covers the round trip and a noisy machine) plus a slice of the bank
spread over the decisions it still expects to make in the game, and never more than ``cap_ms``
when one is set (to study strength against time). Kept apart from the search itself, so the
search knows nothing about clocks and a fixed iteration count makes it deterministic.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Final

MOVE_SHARE: Final = 0.5
"""Of ``move_ms``: half, so that the answer is back well inside the limit on a busy machine."""
BANK_SHARE: Final = 0.5
"""Of the bank: at most half of it is planned away; the other half absorbs overruns."""
OFFLINE_MS: Final = 100
"""Thinking time when the clock is unknown (``move_ms`` 0: offline play, tests)."""


@dataclass(frozen=True, slots=True)
class Budget:
    """Milliseconds for one decision."""

    ms: float

    @staticmethod
    def of(move_ms: int, bank_ms: int, decisions_left: int, cap_ms: float | None = None) -> Budget:
        """``MOVE_SHARE`` of ``move_ms`` plus ``BANK_SHARE`` of the bank over the decisions left
        (``OFFLINE_MS`` without a clock), capped at ``cap_ms``."""
        if move_ms <= 0:
            ms = float(OFFLINE_MS)
        else:
            ms = MOVE_SHARE * move_ms + BANK_SHARE * bank_ms / max(1, decisions_left)
        return Budget(ms if cap_ms is None else min(ms, cap_ms))

    def deadline(self) -> float:
        """The ``time.perf_counter()`` value at which to stop, counted from now."""
        return time.perf_counter() + self.ms / 1000
