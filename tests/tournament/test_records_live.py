"""A recorded tournament replays to exactly what the referee produced live, event by event.

The store keeps no events: readers rebuild them from each game's record. Real referee, real bot
processes, real SQLite; the runner's own hand-over to the store is watched to keep what the
referee produced (events, moves, faults), and every game is then read back as ``replay`` and
``report`` read it. A tight move clock makes the bots miss some moves, so that defaulted moves
and strikes go through the record as well.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from craits.referee import bridge
from craits.referee.game import PlayedGame
from craits.report.steps import steps
from craits.report.stored import iter_games
from craits.tournament.plan.config import config_from_dict
from craits.tournament.plan.schedule import Job
from craits.tournament.run import local_tables as tables
from craits.tournament.run import runner
from craits.tournament.store.database import Store
from craits.tournament.store.game_records import FinishedGame, LoggedFault, LoggedMove

pytestmark = pytest.mark.slow  # a real tournament

Live = dict[int, tuple[list[dict[str, Any]], list[LoggedMove], list[LoggedFault]]]


def test_every_replayed_event_move_and_fault_is_the_live_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    live: Live = {}
    handed_over = tables.finished_game

    def watched(tid: str, job: Job, result: PlayedGame, started: float) -> FinishedGame:
        live[job.game_index] = (
            [e.to_dict() for e in result.events],
            [_rounded(LoggedMove(m.seat, m.move, m.decision_id, m.elapsed_ms, m.defaulted))
             for m in result.moves],
            [LoggedFault("forfeit" if f.forfeit else "strike" if f.strike else "fault",
                         f.seat, f.kind, f.detail, f.decision_id) for f in result.faults],
        )
        return handed_over(tid, job, result, started)

    monkeypatch.setattr(tables, "finished_game", watched)
    config = config_from_dict({
        "name": "live", "seed": 3, "table_size": 3, "deal_sets": 1, "concurrency": 3,
        "rules": {"short_game": True}, "time": {"move_ms": 5, "bank_ms": 0},
        "failure": {"max_strikes": 1000},
        "bots": [{"name": "greedy"}, {"name": "lowcard"}, {"name": "random"}],
    })
    with Store.open(tmp_path / "t.sqlite") as store:
        tid = store.create_tournament(config)
        bridge.run(runner.run_tournament, store, tid, runner.RunOptions(tmp_path / "logs"))
        games = list(iter_games(store, tid))
    assert sorted(g.game_index for g in games) == sorted(live) == [0, 1, 2]
    for game in games:
        events, moves, faults = live[game.game_index]
        assert [dict(e) for e in game.events] == events
        assert [_rounded(m) for m in game.decisions] == moves
        assert list(game.faults) == faults
        replayed = [e.to_dict() for step in steps(game) for e in step.events]
        assert replayed == events


def _rounded(move: LoggedMove) -> LoggedMove:
    """The move with its time to the microsecond, as the record keeps it."""
    ms = None if move.elapsed_ms is None else round(move.elapsed_ms * 1000) / 1000
    return LoggedMove(move.seat, move.move, move.decision, ms, move.defaulted)
