"""A game's stored record: what the referee noted, encoded, decoded, and rebuilt by replaying."""

from __future__ import annotations

import json
import zlib

import pytest

from craits.engine import Game, Move, preset
from craits.engine.record import choice_of, move_at
from craits.referee.game import MoveRecord
from craits.referee.policy import Fault
from craits.tournament.store.game_records import (
    LoggedFault,
    LoggedMove,
    PlayLog,
    RecordError,
    check_outcome,
    rebuild,
)
from craits.tournament.store.record_codec import NO_TIME, decode, encode

RULES = preset("standard").replace(short_game=True)


def _played(seed: int = 4) -> tuple[Game, list[MoveRecord]]:
    """A whole short game of 3 seats, the first legal move each time (decision 2 defaulted)."""
    game = Game.new(RULES, 3, seed)
    records: list[MoveRecord] = []
    while not game.is_over:
        legal, seat = game.legal_moves(), game.to_act
        decision = len(records) + 1
        records.append(MoveRecord(decision, seat, legal[-1], 2.0004, decision == 2,
                                  len(legal) - 1))
        game.apply(legal[-1])
    return game, records


FAULTS = [Fault(1, "timeout", "slow", 2, strike=True, forfeit=False),
          Fault(2, "crash", "gone", 4, strike=True, forfeit=True),
          Fault(0, "error", "noted", 0, strike=False, forfeit=False)]


def test_a_record_rebuilds_every_move_seat_and_event() -> None:
    game, moves = _played()
    rebuilt = rebuild(RULES, 3, 4, decode(encode(PlayLog.of(moves, FAULTS))))
    assert rebuilt.game.events == game.events
    assert rebuilt.moves == tuple(LoggedMove(m.seat, m.move, m.decision_id, 2.0, m.defaulted)
                                  for m in moves)
    assert rebuilt.faults == (LoggedFault("strike", 1, "timeout", "slow", 2),
                              LoggedFault("forfeit", 2, "crash", "gone", 4),
                              LoggedFault("fault", 0, "error", "noted", 0))
    assert game.outcome is not None
    check_outcome(rebuilt.game, game.outcome.totals,
                  {"hands_played": game.outcome.hands_played,
                   "hand_scores": [list(h) for h in game.outcome.hand_scores]})


def test_the_stored_value_is_the_documented_header_and_byte_planes() -> None:
    _, moves = _played()
    n = len(moves)
    raw = zlib.decompress(encode(PlayLog.of(moves, [])))
    line, _, rest = raw.partition(b"\n")
    assert json.loads(line) == {"v": 1, "n": n, "first": 1, "defaulted": [1]}
    assert list(rest[:n]) == [m.choice for m in moves]  # low bytes (all below 128 here)
    assert rest[n:2 * n] == bytes(n)  # high bytes
    assert rest[2 * n:3 * n] == bytes([2000 % 256]) * n  # 2,000 us, lowest byte first
    assert rest[3 * n:4 * n] == bytes([2000 // 256]) * n
    assert rest[4 * n:] == bytes(2 * n)


def test_decision_numbers_that_do_not_follow_are_kept_and_unknown_times_too() -> None:
    play = PlayLog((0, -3, 300), (None, 1.5, 4000.25), (3, 9, 10))
    assert decode(encode(play)) == play
    assert json.loads(zlib.decompress(encode(play)).partition(b"\n")[0])["decisions"] == [3, 9, 10]
    assert NO_TIME == 2**32 - 1


def test_a_move_without_its_announcement_is_stored_beside_the_announced_one() -> None:
    announced = Move.parse("play 4S one-card")
    legal = [Move.parse("draw"), announced]
    assert choice_of(legal, announced) == 1
    assert choice_of(legal, Move.parse("play 4S")) == -2
    assert move_at(legal, -2) == Move.parse("play 4S")
    with pytest.raises(ValueError):
        choice_of(legal, Move.parse("play 5S"))


@pytest.mark.parametrize(("value", "fragment"), [
    (b"not zlib", "damaged"),
    (zlib.compress(b'{"v": 2}\n'), "format 2"),
    (zlib.compress(b'{"v": 1, "n": 2, "first": 1}\n' + bytes(6)), "6 bytes of moves"),
])
def test_a_damaged_record_is_an_error_that_says_so(value: bytes, fragment: str) -> None:
    with pytest.raises(RecordError, match=fragment):
        decode(value)


def test_moves_that_do_not_replay_are_an_error() -> None:
    _, moves = _played()
    play = PlayLog.of(moves, [])
    with pytest.raises(RecordError, match="stop before the end"):
        rebuild(RULES, 3, 4, PlayLog(play.choices[:-1], play.elapsed_ms[:-1],
                                      play.decisions[:-1]))
    with pytest.raises(RecordError, match="legal move 99"):
        rebuild(RULES, 3, 4, PlayLog((99,), (1.0,), (1,)))
    with pytest.raises(RecordError, match="after the end"):
        rebuild(RULES, 3, 4, PlayLog((*play.choices, 0), (*play.elapsed_ms, 1.0),
                                      (*play.decisions, 0)))


def test_a_game_that_ends_otherwise_than_stored_is_an_error() -> None:
    game, _ = _played()
    assert game.outcome is not None
    wrong = [t + 1 for t in game.outcome.totals]
    with pytest.raises(RecordError, match="totals"):
        check_outcome(game, wrong, {})
    with pytest.raises(RecordError, match="hands_played"):
        check_outcome(game, game.outcome.totals, {"hands_played": 99})
