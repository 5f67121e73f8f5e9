"""The pipe's protocol side without a network: routing, history once, re-sends, rejections, EOF."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from craits.engine import Game, observe, preset
from craits.pipebot.game import ChildSpec
from craits.pipebot.session import PipeSession
from craits.protocol import events_to_pb, moves_to_pb, observation_to_pb, rules_to_pb
from craits.v1 import referee_pb2 as pb
from craits_sdk import RefereeError

RULES = preset("standard")
CHILD = """
import sys
for line in sys.stdin:
    with open(sys.argv[1], "a") as out:
        out.write(line)
    print(0, flush=True)
"""


def _packet(**message: object) -> pb.RefereePacket:
    return pb.RefereePacket(messages=[pb.RefereeMessage(**message)])  # type: ignore[arg-type]


def _start() -> pb.RefereePacket:
    return _packet(game_start=pb.GameStart(game_id="g", seat=0, rules=rules_to_pb(RULES)))


def _decision(game: Game, decision_id: int, since: int) -> pb.RefereePacket:
    obs = observe(game, game.to_act, since)
    return _packet(decision=pb.DecisionRequest(
        game_id="g", decision_id=decision_id, observation=observation_to_pb(obs),
        legal_moves=moves_to_pb(game.legal_moves()), move_ms=100, bank_ms=200,
    ))


def _rejected(decision_id: int, retries_left: int) -> pb.RefereePacket:
    return _packet(rejected=pb.MoveRejected(
        game_id="g", decision_id=decision_id, reason="no", retries_left=retries_left,
    ))


async def _reply(session: PipeSession) -> pb.MoveReply:
    message = await asyncio.wait_for(session.outbox.get(), 10)
    return message.move


async def _quiet(session: PipeSession) -> None:
    await asyncio.sleep(0.3)
    assert session.outbox.empty()


def _seat0_turn(game: Game) -> None:
    """Play first legal moves until seat 0 is to act again."""
    game.apply(game.legal_moves()[0])
    while game.to_act != 0:
        game.apply(game.legal_moves()[0])


async def _first_answer(session: PipeSession) -> Game:
    """Start game "g" with seat 0 to act and check the child's first answer; the game."""
    game = Game.new(RULES, 2, seed=4)
    while game.to_act != 0:
        game.apply(game.legal_moves()[0])
    session.handle(_start())
    session.handle(_decision(game, 1, 0))
    assert (await _reply(session)).legal_index == 0
    return game


async def _scenario(tmp_path: Path) -> tuple[list[dict[str, object]], int | None]:
    record = tmp_path / "lines.jsonl"
    session = PipeSession(ChildSpec((sys.executable, "-c", CHILD, str(record)), None, {}))
    game = await _first_answer(session)
    sent = len(game.events)
    _seat0_turn(game)
    middle = (sent + len(game.events)) // 2  # part of the history comes as an update
    session.handle(_packet(update=pb.GameUpdate(
        game_id="g", events=events_to_pb(game.events[sent:middle], sent))))
    session.handle(_decision(game, 2, middle))
    first = await _reply(session)
    # A reconnect: the game is announced again and the open request re-sent with all history.
    session.handle(_start())
    session.handle(_decision(game, 2, 0))
    assert await _reply(session) == first
    session.handle(_rejected(1, 2))  # stale: decision 1 is not the open one
    session.handle(_rejected(2, 0))  # closed: no answer wanted
    await _quiet(session)
    session.handle(_rejected(2, 1))
    assert (await _reply(session)).decision_id == 2
    child = session.games["g"].child
    session.handle(_packet(game_end=pb.GameEnd(game_id="g")))
    await session.close()
    assert child is not None
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    return lines, child.process.returncode


def test_the_child_hears_each_event_once_and_each_decision_once(tmp_path: Path) -> None:
    lines, status = asyncio.run(_scenario(tmp_path))
    assert [x["type"] for x in lines] == ["decision", "decision", "rejected"]
    first, second, rejected = lines
    assert first["events_from"] == 0
    assert isinstance(first["events"], list)
    assert second["events_from"] == len(first["events"])
    assert rejected["retries_left"] == 1 and rejected["legal_moves"] == second["legal_moves"]
    assert status == 0  # stdin closed at the game's end: the child's loop ended


def test_a_fatal_error_is_raised_and_unknown_games_are_ignored() -> None:
    async def main() -> None:
        session = PipeSession(ChildSpec(("cat",), None, {}))
        session.handle(_packet(update=pb.GameUpdate(game_id="nowhere")))
        assert session.games == {}
        with pytest.raises(RefereeError, match="BAD_TOKEN"):
            session.handle(_packet(error=pb.Error(code=pb.ERROR_CODE_BAD_TOKEN, message="x")))

    asyncio.run(main())


@pytest.mark.parametrize(("argv", "reason"), [
    (("/nonexistent/bot",), "cannot start '/nonexistent/bot'"),
    (("sh", "-c", "exit 127"), "pipe bot \"sh -c 'exit 127'\" exited with status 127 (command"),
    (("sh", "-c", "exit 126"), "exited with status 126 (found but not executable)"),
])
def test_a_command_that_cannot_run_stops_the_pipe_and_sends_no_answer(
    argv: tuple[str, ...], reason: str
) -> None:
    """Every game would fail alike: the pipe stops (its seats forfeit as a crashed bot's)
    rather than passing its error message off as a move."""

    async def main() -> str:
        session = PipeSession(ChildSpec(argv, None, {"PATH": "/usr/bin:/bin"}))
        game = Game.new(RULES, 2, seed=4)
        session.handle(_start())
        session.handle(_decision(game, 1, 0))
        stopped = await asyncio.wait_for(session.stopped, 10)
        await _quiet(session)
        await session.close()
        return stopped

    assert reason in asyncio.run(main())


def test_a_child_that_answered_then_exits_127_fails_its_own_game_only() -> None:
    """Status 127 after an answer means something the child ran is missing, not that the
    command cannot run: this game's seat cannot play on, but the pipe (its other games) goes on."""

    async def main() -> tuple[bool, pb.MoveReply]:
        argv = ("sh", "-c", "read -r line; echo 0; exit 127")
        session = PipeSession(ChildSpec(argv, None, {"PATH": "/usr/bin:/bin"}))
        game = await _first_answer(session)
        sent = len(game.events)
        _seat0_turn(game)
        session.handle(_decision(game, 2, sent))
        second = await _reply(session)
        stopped = session.stopped.done()
        await session.close()
        return stopped, second

    stopped, second = asyncio.run(main())
    assert not stopped
    assert "exited with status 127" in second.text


SLOW_IN_ONE_GAME = 'while read -r l; do [ "$CRAITS_GAME_ID" = slow ] && sleep 1; echo 0; done'


@pytest.mark.slow
def test_games_run_side_by_side_each_with_its_own_child() -> None:
    """A slow child delays only its own game (tournaments seat one bot at many tables)."""

    async def main() -> list[str]:
        spec = ChildSpec(("sh", "-c", SLOW_IN_ONE_GAME), None, {"PATH": "/usr/bin:/bin"})
        session = PipeSession(spec)
        game = Game.new(RULES, 2, seed=4)
        for game_id in ("slow", "fast"):
            start = _start().messages[0].game_start
            start.game_id = game_id
            session.handle(_packet(game_start=start))
            request = _decision(game, 1, 0).messages[0].decision
            request.game_id = game_id
            session.handle(_packet(decision=request))
        order = [(await _reply(session)).game_id for _ in range(2)]
        await session.close()
        return order

    assert asyncio.run(main()) == ["fast", "slow"]
