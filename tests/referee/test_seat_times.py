"""Seats with their own time control (a tournament's ``[[bots]] move_ms``, ``bank_ms``)."""

from __future__ import annotations

import trio
import trio.testing

from craits.engine import preset
from craits.referee.game import GameSpec, PlayedGame, play_game
from craits.referee.policy import FailurePolicy, TimeControl
from craits.referee.seats import Table
from craits.tournament.plan.config import config_from_dict, parse_config

from .scripted_seat import ScriptedSeat


class TimeNotingSeat(ScriptedSeat):
    """Notes the time control it is told at game start."""

    told: TimeControl | None = None

    async def start(self, table: Table, seat: int) -> None:
        await super().start(table, seat)
        self.told = table.time_for(seat)


def test_each_seat_is_timed_and_told_by_its_own_control() -> None:
    seats = [TimeNotingSeat("quick", lambda n: 0.5), TimeNotingSeat("slow", lambda n: 0.5)]
    own = (TimeControl(100, 0), TimeControl(1000, 0))
    spec = GameSpec("own-clock", preset("standard"), 5, TimeControl(1000, 0),
                    FailurePolicy(max_strikes=3), own)

    async def main() -> PlayedGame:
        return await play_game(spec, seats, now=trio.current_time)

    result = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert {f.seat for f in result.faults} == {0} and result.forfeited == (True, False)
    assert [s.told for s in seats] == list(own)


def test_a_bot_entry_may_set_its_own_time() -> None:
    config = parse_config('table_size = 2\n[time]\nmove_ms = 500\n[[bots]]\nname = "greedy"\n'
                          'move_ms = 50\n[[bots]]\nname = "random"\nbank_ms = 0\n')
    base = config.time
    assert config.bot("greedy").time_control(base) == TimeControl(50, base.bank_ms)
    assert config.bot("random").time_control(base) == TimeControl(500, 0)
    assert config_from_dict(config.to_dict()) == config  # as the store keeps it
