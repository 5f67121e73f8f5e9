"""A game's stored log: ``game_log`` writes it from the referee's record, ``read_log`` splits it."""

from __future__ import annotations

import pytest

from craits.engine import Game, preset
from craits.referee.game import MoveRecord
from craits.referee.policy import Fault
from craits.tournament.records import (
    LogEntry,
    LogError,
    LoggedFault,
    LoggedMove,
    game_log,
    read_log,
)


def _played(moves: int) -> tuple[Game, list[MoveRecord]]:
    game = Game.new(preset("standard"), 3, seed=4)
    records = []
    for decision in range(1, moves + 1):
        move, seat = game.legal_moves()[0], game.to_act
        records.append(MoveRecord(decision, seat, move, 2.0004, decision == 2))
        game.apply(move)
    return game, records


def test_what_is_written_reads_back_apart() -> None:
    game, moves = _played(5)
    faults = [Fault(1, "timeout", "slow", 2, strike=True, forfeit=False),
              Fault(2, "crash", "gone", 4, strike=True, forfeit=True),
              Fault(0, "error", "noted", 5, strike=False, forfeit=False)]
    log = read_log(game_log(game.events, moves, faults))
    assert log.events == tuple(e.to_dict() for e in game.events)
    assert log.moves == tuple(LoggedMove(m.seat, m.move, m.decision_id, 2.0, m.defaulted)
                              for m in moves)
    assert log.faults == (LoggedFault("strike", 1, "timeout", "slow", 2),
                          LoggedFault("forfeit", 2, "crash", "gone", 4),
                          LoggedFault("fault", 0, "error", "noted", 5))


def test_events_come_first_then_moves_then_faults() -> None:
    game, moves = _played(2)
    fault = Fault(0, "timeout", "", 1, strike=True, forfeit=False)
    kinds = [e.kind for e in game_log(game.events, moves, [fault])]
    assert kinds == [e.kind for e in game.events] + ["move", "move", "strike"]


@pytest.mark.parametrize("data", [{"move": "play 99Z"}, {"decision": 1}])
def test_an_unreadable_move_is_a_log_error(data: dict[str, object]) -> None:
    with pytest.raises(LogError, match="unreadable log entry"):
        read_log([LogEntry("move", 0, data)])
