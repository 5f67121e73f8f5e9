"""End to end: real referee on loopback gRPC, real bot processes, full games."""

from __future__ import annotations

from pathlib import Path

import pytest

from craits.engine import Game, preset, replay
from craits.hosting.match import run_match
from craits.referee import bridge
from craits.referee.game import GameSpec, PlayedGame
from craits.referee.policy import FailurePolicy, TimeControl

from .helpers import rawbot

pytestmark = pytest.mark.slow  # whole games of real bot processes over gRPC


def _match(specs: list[str], spec: GameSpec, logs: Path) -> PlayedGame:
    async def main() -> PlayedGame:
        return await run_match(specs, spec, logs)

    return bridge.run(main)


def _first_legal_outcome(players: int, seed: int) -> tuple[int, ...]:
    """The same game played in process, every seat choosing its first legal move."""
    game = Game.new(preset("standard"), players, seed)
    while not game.is_over:
        game.apply(game.legal_moves()[0])
    assert game.outcome is not None
    return game.outcome.totals


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_full_game_over_grpc_equals_in_process_engine(players: int, tmp_path: Path) -> None:
    spec = GameSpec(f"e2e-{players}", preset("standard"), seed=100 + players)
    result = _match([rawbot("good")] * players, spec, tmp_path)
    assert result.outcome.hands_played == 15
    assert not any(result.forfeited) and sum(result.strikes) == 0 and not result.faults
    again = replay(spec.rules, players, spec.seed, [m.move for m in result.moves])
    assert again.outcome == result.outcome
    assert again.events == result.events
    assert result.totals == _first_legal_outcome(players, spec.seed)


SHORT = preset("standard").replace(short_game=True)


def _short(game_id: str, move_ms: int = 2000, bank_ms: int = 0) -> GameSpec:
    return GameSpec(
        game_id, SHORT, seed=7, time=TimeControl(move_ms, bank_ms),
        policy=FailurePolicy(max_retries=2, max_strikes=3, grace_ms=3000),
    )


def _faults_of(result: PlayedGame, seat: int) -> list[str]:
    return [f.kind for f in result.faults if f.seat == seat]


@pytest.mark.parametrize(
    ("mode", "fault"), [("illegal", "bad_replies"), ("garbage", "bad_replies")]
)
def test_bad_replies_strike_three_times_then_forfeit(mode: str, fault: str, tmp_path: Path) -> None:
    result = _match([rawbot("good"), rawbot(mode), rawbot("good")], _short(mode), tmp_path)
    assert result.outcome.hands_played == 8
    assert _faults_of(result, 1) == [fault] * 3
    assert result.strikes == (0, 3, 0)
    assert result.forfeited == (False, True, False)
    assert result.places[1] == 3
    assert all(m.defaulted for m in result.moves if m.seat == 1)


def test_one_bad_reply_then_a_good_one_costs_nothing(tmp_path: Path) -> None:
    result = _match([rawbot("good"), rawbot("flaky")], _short("flaky"), tmp_path)
    assert result.faults == [] and result.strikes == (0, 0)
    assert not any(m.defaulted for m in result.moves)


def test_slow_bot_times_out_and_forfeits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAWBOT_SLEEP", "0.6")
    result = _match([rawbot("slow"), rawbot("good")], _short("slow", move_ms=150), tmp_path)
    assert _faults_of(result, 0)[:3] == ["timeout"] * 3
    assert result.forfeited == (True, False)
    assert result.outcome.hands_played == 8


def test_crash_mid_game_forfeits_and_game_completes(tmp_path: Path) -> None:
    result = _match([rawbot("good"), rawbot("crash"), rawbot("good")], _short("crash"), tmp_path)
    assert _faults_of(result, 1) == ["crash"]
    assert result.forfeited == (False, True, False)
    assert result.strikes == (0, 0, 0)
    assert result.outcome.hands_played == 8


def test_disconnect_and_reconnect_keeps_the_seat(tmp_path: Path) -> None:
    capture = tmp_path / "reconnect.b64"
    result = _match(
        [rawbot("good"), rawbot("reconnect", capture)], _short("reconnect"), tmp_path
    )
    assert result.faults == [] and result.forfeited == (False, False)
    from .wire import read_capture

    kinds = [m.WhichOneof("payload") for p in read_capture(capture) for m in p.messages]
    assert kinds.count("welcome") == 2
    assert kinds.count("game_start") == 2
    assert kinds.count("game_end") == 1
