"""The per-move clock of ``play_game``: timeouts, the bank, deadlines passing as a reply lands.

Seats here are in-process async seats that take a scripted time per decision. Every game runs
on virtual time (``MockClock``), the referee's own measurement included (``play_game``'s
``now``): the deadlines and the banks are then exact, and a loaded machine cannot move them.
"""

from __future__ import annotations

import pytest
import trio
import trio.testing

from craits.engine import Move, preset
from craits.referee.game import GameSpec, PlayedGame, play_game
from craits.referee.policy import FailurePolicy, TimeControl
from craits.referee.seats import Decision, Seat

from .scripted_seat import ScriptedSeat

RULES = preset("standard")


def _play(seats: list[Seat], time: TimeControl, strikes: int = 3) -> PlayedGame:
    """Play a game on virtual time, the referee's clock and trio's one and the same."""
    spec = GameSpec("clock", RULES, 5, time, FailurePolicy(max_strikes=strikes))

    async def main() -> PlayedGame:
        return await play_game(spec, seats, now=trio.current_time)

    return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def test_one_slow_decision_is_played_by_the_policy_and_the_game_goes_on() -> None:
    slow = ScriptedSeat("slow", lambda n: 5.0 if n == 3 else 0.0)
    result = _play([slow, ScriptedSeat("fast", lambda n: 0.0)], TimeControl(1000, 500))
    timeouts = [f for f in result.faults if f.kind == "timeout"]
    assert len(timeouts) == 1 and timeouts[0].seat == 0 and timeouts[0].strike
    assert "1.500s" in timeouts[0].detail  # move limit plus the whole bank
    seat0 = [m for m in result.moves if m.seat == 0]
    assert [m.defaulted for m in seat0[:4]] == [False, False, True, False]
    assert seat0[2].decision_id == timeouts[0].decision_id
    assert sum(m.defaulted for m in result.moves) == 1
    assert result.outcome is not None and not result.forfeited[0]


def test_every_decision_slow_forfeits_after_max_strikes_and_the_game_completes() -> None:
    result = _play([ScriptedSeat("slow", lambda n: 2.0), ScriptedSeat("fast", lambda n: 0.0)],
                   TimeControl(1000, 0), strikes=3)
    assert [f.kind for f in result.faults] == ["timeout"] * 3
    assert result.forfeited == (True, False)
    assert all(m.defaulted for m in result.moves[6:] if m.seat == 0)
    assert result.places[0] == 2


class LateReplySeat(ScriptedSeat):
    """On its ``late``-th decision, the reply lands just before the deadline but the seat's task
    only runs after it has passed (the clock jumps in between): the race a busy referee sees."""

    def __init__(self, name: str, late: int, nursery: trio.Nursery,
                 clock: trio.testing.MockClock) -> None:
        super().__init__(name, lambda n: 0.0)
        self._late, self._nursery, self._clock = late, nursery, clock

    async def decide(self, decision: Decision) -> Move:
        if self.asked + 1 != self._late:
            return await super().decide(decision)
        self.asked += 1
        landed = trio.Event()

        async def reply_then_stall() -> None:
            await trio.sleep(0.999)
            landed.set()  # the seat's task is now runnable...
            self._clock.jump(0.01)  # ...but runs only after the 1 s deadline has passed

        self._nursery.start_soon(reply_then_stall)
        await landed.wait()
        return decision.legal[0]


def test_a_reply_that_landed_before_the_deadline_counts_and_costs_the_next_move_nothing() -> None:
    clock = trio.testing.MockClock(autojump_threshold=0)
    spec = GameSpec("late", RULES, 5, TimeControl(1000, 0))

    async def main() -> PlayedGame:
        async with trio.open_nursery() as nursery:
            seats: list[Seat] = [LateReplySeat("late", 2, nursery, clock),
                                 ScriptedSeat("fast", lambda n: 0.0)]
            return await play_game(spec, seats, now=trio.current_time)

    result = trio.run(main, clock=clock)
    assert result.faults == []
    assert not any(m.defaulted for m in result.moves)


def test_time_beyond_the_move_limit_is_drawn_from_the_bank() -> None:
    slow_once = ScriptedSeat("slow", lambda n: 0.3 if n == 1 else 0.0)
    result = _play([slow_once, ScriptedSeat("fast", lambda n: 0.0)], TimeControl(100, 1000))
    assert result.faults == []
    first = next(m for m in result.moves if m.seat == 0)
    assert first.elapsed_ms == pytest.approx(300)
    assert slow_once.banks[:2] == pytest.approx([1000, 800])  # 200 ms beyond the move limit


class BuggySeat(ScriptedSeat):
    """Raises on its first decision after its scripted time."""

    async def decide(self, decision: Decision) -> Move:
        move = await super().decide(decision)
        if self.asked == 1:
            raise RuntimeError("bot bug")
        return move


def test_time_a_bot_spent_before_its_bug_is_drawn_from_the_bank() -> None:
    buggy = BuggySeat("buggy", lambda n: 0.3 if n == 1 else 0.0)
    result = _play([buggy, ScriptedSeat("fast", lambda n: 0.0)], TimeControl(100, 1000))
    assert [(f.kind, f.detail) for f in result.faults] == [("error", "RuntimeError: bot bug")]
    assert buggy.banks[0] == 1000
    assert buggy.banks[1] == pytest.approx(800)  # 200 ms beyond the limit, charged like an answer


def test_a_timeout_names_the_move_limit_plus_the_bank_it_had() -> None:
    # the cancelled decision's time is charged on its way out, before the referee reports the
    # timeout (emptying the bank), so the limit must be the one noted when the deadline passed
    slow = ScriptedSeat("slow", lambda n: 5.0 if n == 1 else 0.0)
    result = _play([slow, ScriptedSeat("fast", lambda n: 0.0)], TimeControl(100, 200))
    timeouts = [f for f in result.faults if f.kind == "timeout"]
    assert len(timeouts) == 1 and "within 0.300s" in timeouts[0].detail


def test_cancelling_the_game_from_outside_is_not_a_timeout() -> None:
    spec = GameSpec("cancel", RULES, 5, TimeControl(10_000, 0))
    seats: list[Seat] = [ScriptedSeat("a", lambda n: 100.0), ScriptedSeat("b", lambda n: 0.0)]

    async def main() -> bool:
        with trio.move_on_after(1.0) as outer:
            await play_game(spec, seats)
        return outer.cancelled_caught

    assert trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


@pytest.mark.parametrize("bank_ms", [0, 2000])
def test_a_stretch_renewed_after_a_timeout_still_times_out_later_decisions(bank_ms: int) -> None:
    slow = ScriptedSeat("slow", lambda n: 9.0 if n in (2, 4) else 0.0)
    result = _play([slow, ScriptedSeat("fast", lambda n: 0.0)], TimeControl(1000, bank_ms))
    timeouts = [f for f in result.faults if f.kind == "timeout"]
    assert len(timeouts) == 2
    seat0 = [m for m in result.moves if m.seat == 0]
    assert [m.defaulted for m in seat0[:5]] == [False, True, False, True, False]


def test_a_deadline_many_move_limits_away_is_kept_exactly() -> None:
    # the watchdog wakes once per move limit; a bank-backed deadline spans several such wakes:
    # each seat's first decision is due 6 s after it opens, one answers just before, one after
    under = ScriptedSeat("under", lambda n: 5.9 if n == 1 else 0.0)
    over = ScriptedSeat("over", lambda n: 6.1 if n == 1 else 0.0)
    result = _play([under, over], TimeControl(1000, 5000))
    seat0 = [m for m in result.moves if m.seat == 0]
    seat1 = [m for m in result.moves if m.seat == 1]
    assert [m.defaulted for m in seat0[:2]] == [False, False]
    assert [m.defaulted for m in seat1[:2]] == [True, False]
    timeouts = [f for f in result.faults if f.kind == "timeout"]
    assert [f.decision_id for f in timeouts] == [seat1[0].decision_id]
    assert "6.000s" in timeouts[0].detail
    assert under.banks[:2] == pytest.approx([5000, 100])  # 4.9 s beyond the move limit


def test_no_move_clock_outlives_its_game() -> None:
    spec = GameSpec("tasks", RULES, 5, TimeControl(1000, 0))

    def clocks() -> list[str]:
        root = trio.lowlevel.current_root_task()
        assert root is not None
        nurseries = root.child_nurseries  # the system tasks' too
        return [t.name for n in nurseries for t in n.child_tasks
                if t.name.startswith("move clock")]

    async def main() -> tuple[list[str], list[str]]:
        during: list[str] = []

        class Peek(ScriptedSeat):
            async def decide(self, decision: Decision) -> Move:
                if not during:
                    during.extend(clocks())
                return await super().decide(decision)

        for _ in range(3):
            await play_game(spec, [Peek("a", lambda n: 0.0), ScriptedSeat("b", lambda n: 0.0)])
        await trio.testing.wait_all_tasks_blocked()  # cancelled watchdogs have run and ended
        return during, clocks()

    during, after = trio.run(main)
    assert during == ["move clock tasks"]
    assert after == []
