"""``python -m craits.contest.selfplay``: validation's self-play games, in a child process.

Why a child: a self-play game is a whole table (a referee, one sandboxed process per seat, their
gRPC, the game's record in memory), about 0.6-1 s of CPU per validation. Played in the service,
that CPU was the web pages' and the matchmaker's event loop's: every upload a latency spike on the
pages, a burst of uploads near a deadline a longer one. Here it is the child's, as the conformance
run's is ``checkrun``'s; the service starts it, waits for it and stops it exactly as it does that
one (``validation.in_child``).

The child is given what the service loaded (``SelfPlayOrder``, pickled: the rules, clocks, limits
and hidden paths of ``ContestRun.setting``, the table sizes), never ``contest.toml`` read again, so
a version is judged under the contest the service runs even if the file was edited since. It
plays through ``dealsets`` as the ladder does (fair play and sandboxing unchanged), records
nothing, shows nothing live and never opens the store: it prints one JSON line, the outcome, and
the service judges. Like ``checkrun`` it dies with the service (``die_with_parent``), and its
bots' sandboxes with it.
"""

from __future__ import annotations

import base64
import pickle
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from craits.dealkey import DealKey
from craits.referee.bridge import run
from craits.tournament.plan.schedule import Job
from craits.tournament.run.botpool import BotPoolError
from craits.tournament.store.game_records import FinishedGame

from .checkrun import child_main
from .dealsets import Entrant, Setting, play_deal_set


@dataclass(frozen=True, slots=True)
class SelfPlayOrder:
    """One version's self-play, as the service tells its child."""

    label: str
    """The version's label (``v<id>``); seat ``n`` is ``<label>-<n>`` in its logs."""
    directory: Path
    command: str
    setting: Setting
    tables: tuple[tuple[int, Path], ...]
    """Each table size to play once, in order, with the directory of its bots' logs."""

    def encode(self) -> str:
        """The order as one command-line argument."""
        return base64.b64encode(pickle.dumps(self)).decode("ascii")

    @staticmethod
    def decode(text: str) -> SelfPlayOrder:
        """The order ``encode`` made (the service's own, so unpickling it is safe). Its class is
        ``craits.contest.selfplay``'s, which under ``python -m`` is not ``__main__``'s: the same
        fields, so no ``isinstance`` here."""
        order: SelfPlayOrder = pickle.loads(base64.b64decode(text))
        return order


async def self_play(order: SelfPlayOrder) -> dict[str, Any]:
    """Play one game at each of the order's table sizes, every seat a sandboxed process of the
    version, stopping at the first that fails: ``{"passed": true}``, or ``passed`` false with
    the ``size`` that failed and the ``reason`` (the service's paths still in it)."""
    for size, logs in order.tables:
        entrants = [Entrant(f"{order.label}-{seat}", order.directory, order.command)
                    for seat in range(size)]
        games: list[FinishedGame] = []

        async def keep(job: Job, game: FinishedGame, into: list[FinishedGame] = games) -> None:
            into.append(game)

        try:
            await play_deal_set(entrants, DealKey.fresh(), order.setting, logs, keep,
                                seatings=[0])
        except BotPoolError as exc:
            return {"passed": False, "size": size, "reason": f"self-play at {size} seats: {exc}"}
        for game in games:
            faults = game.play.faults
            if faults or any(game.forfeited):
                shown = "; ".join(f"seat {f.seat}: {f.action} ({f.reason}): {f.detail}"
                                  for f in faults[:3])
                return {"passed": False, "size": size,
                        "reason": f"self-play at {size} seats: {len(faults)} fault(s): "
                                  f"{shown or 'a seat forfeited'}"}
    return {"passed": True}


def main(argv: list[str]) -> int:
    """Play the self-play games of the order in ``argv[0]`` (``checkrun.child_main``)."""
    return child_main(argv, lambda order: run(self_play, SelfPlayOrder.decode(order)))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
