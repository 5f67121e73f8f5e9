"""The runner never waits for the results database on the trio thread.

A thread recording a finished game holds the store's lock for its whole transaction (a game's log
is thousands of rows; a slow disk makes it longer). Waiting for that lock on the trio thread
would freeze every table at once and charge the pause to the bots' clocks. Real referee, real bot
processes, a real SQLite file; only the lock is held longer than a fast disk would hold it.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
import trio

from craits.referee import bridge
from craits.tournament.plan.config import config_from_dict
from craits.tournament.run.runner import RunOptions, run_tournament
from craits.tournament.store.database import Store
from craits.tournament.store.game_records import FinishedGame

pytestmark = pytest.mark.slow  # a real tournament on a slow disk

HOLD_S = 0.8
"""How long the store stays locked after each recorded game (a slow disk)."""


class SlowDisk(Store):
    """After each recorded game, another thread holds the store's lock for ``HOLD_S``."""

    def record_game(self, game: FinishedGame) -> bool:
        recorded = super().record_game(game)
        locked = threading.Event()

        def hold() -> None:
            with self._lock:
                locked.set()
                time.sleep(HOLD_S)

        threading.Thread(target=hold, daemon=True).start()
        locked.wait()  # the runner's next claim comes after this: it finds the store locked
        return recorded


async def _longest_stall(store: Store, tid: str, logs: Path) -> float:
    """Run the tournament while a task measures the longest gap between its 10 ms ticks."""
    longest = 0.0

    async def tick() -> None:
        nonlocal longest
        last = trio.current_time()
        while True:
            await trio.sleep(0.01)
            now = trio.current_time()
            longest, last = max(longest, now - last), now

    async with trio.open_nursery() as nursery:
        nursery.start_soon(tick)
        await run_tournament(store, tid, RunOptions(logs))
        nursery.cancel_scope.cancel()
    return longest


def test_a_locked_store_never_stalls_the_tables(tmp_path: Path) -> None:
    config = config_from_dict({
        "name": "slow-disk", "seed": 5, "table_size": 2, "deal_sets": 2, "concurrency": 2,
        "rules": {"short_game": True},
        "bots": [{"name": "greedy"}, {"name": "lowcard"}],
    })
    store = SlowDisk(Store.open(tmp_path / "t.sqlite")._db)
    tid = store.create_tournament(config)
    stall = bridge.run(_longest_stall, store, tid, tmp_path / "logs")
    assert store.tournament(tid).jobs["done"] == 4
    assert stall < HOLD_S / 2, f"the trio thread stalled {stall:.2f} s"
