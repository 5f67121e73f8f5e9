"""The SDK against a fake referee over real gRPC: handshake, multiplexing, retries, failures."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

import pytest

from craits.engine import Event, Game, Move
from craits.protocol import events_to_pb
from craits.v1 import referee_pb2 as pb
from craits_sdk import (
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_REFUSED,
    EXIT_UNREACHABLE,
    Bot,
    GameResult,
    Options,
    View,
    serve,
)

from .fake_referee import (
    Conn,
    decision,
    error,
    free_port,
    game_start,
    new_game,
    rejected,
    run_bot,
    shutdown,
    welcome,
)
from .recording_bot import RecordingBot


def test_handshake_sends_version_token_and_name_and_shutdown_exits_zero() -> None:
    hellos: list[pb.Hello] = []

    async def script(conn: Conn) -> None:
        hellos.append(await conn.handshake())
        await conn.send(shutdown())

    status, referee = asyncio.run(run_bot(RecordingBot(), [script]))
    assert status == EXIT_OK
    assert referee.connections == 1
    assert hellos[0].protocol_version == pb.PROTOCOL_VERSION_1
    assert hellos[0].token == "secret"
    assert hellos[0].client == "recorder"


def test_two_games_in_one_packet_are_answered_in_one_packet() -> None:
    game_a, game_b = new_game(seed=1), new_game(seed=2, players=4)
    replies: list[pb.MoveReply] = []

    async def script(conn: Conn) -> None:
        await conn.handshake()
        await conn.send(
            game_start("a", game_a, game_a.to_act),
            game_start("b", game_b, game_b.to_act),
            decision("a", 11, game_a),
            decision("b", 22, game_b),
        )
        replies.extend(await conn.recv_moves())
        await conn.send(shutdown())

    bot = RecordingBot(lambda view: view.legal_moves[-1])
    status, _ = asyncio.run(run_bot(bot, [script]))
    assert status == EXIT_OK
    assert [(r.game_id, r.decision_id) for r in replies] == [("a", 11), ("b", 22)]
    assert [r.legal_index for r in replies] == [
        len(game_a.legal_moves()) - 1,
        len(game_b.legal_moves()) - 1,
    ]
    assert [g.game_id for g in bot.started] == ["a", "b"]
    assert bot.started[1].players == ("bot0", "bot1", "bot2", "bot3")
    view_a, view_b = bot.views
    assert (view_a.game_id, view_b.game_id) == ("a", "b")
    assert view_b.hand == tuple(sorted(game_b.hands[game_b.to_act]))
    assert view_b.legal_moves == tuple(game_b.legal_moves())
    assert view_b.events == tuple(e.seen_by(game_b.to_act) for e in game_b.events)


def test_rejected_move_is_retried_with_the_reason_in_the_view() -> None:
    game = new_game()
    replies: list[pb.MoveReply] = []

    async def script(conn: Conn) -> None:
        await conn.handshake()
        await conn.send(game_start("g", game, game.to_act), decision("g", 1, game))
        replies.extend(await conn.recv_moves())
        await conn.send(rejected("g", 1, 2, "not today"))
        replies.extend(await conn.recv_moves())
        await conn.send(shutdown())

    def choose(view: View) -> object:
        return "play 7H" if view.rejection is None else view.legal_moves[0]

    bot = RecordingBot(choose)
    status, _ = asyncio.run(run_bot(bot, [script]))
    assert status == EXIT_OK
    first, second = replies
    assert first.WhichOneof("choice") in ("move", "legal_index")
    assert second.legal_index == 0 and second.decision_id == 1
    rejection = bot.views[1].rejection
    assert rejection is not None and rejection.reason == "not today"
    assert rejection.retries_left == 2 and rejection.move == Move.parse("play 7H")


def test_repeating_a_rejected_move_sends_another_legal_move() -> None:
    game = new_game(seed=3)
    while len(game.legal_moves()) < 2:
        game.apply(game.legal_moves()[0])
    replies: list[pb.MoveReply] = []

    async def script(conn: Conn) -> None:
        await conn.handshake()
        await conn.send(game_start("g", game, game.to_act), decision("g", 5, game))
        replies.extend(await conn.recv_moves())
        await conn.send(rejected("g", 5, 1, "no"))
        replies.extend(await conn.recv_moves())
        await conn.send(rejected("g", 5, 0, "no again"), shutdown())

    status, referee = asyncio.run(run_bot(RecordingBot(), [script]))
    assert status == EXIT_OK
    assert [r.legal_index for r in replies] == [0, 1]
    assert len(referee.received) == 3  # hello + two answers; nothing after retries_left == 0


def test_exception_in_decide_answers_the_first_legal_move(caplog: pytest.LogCaptureFixture) -> None:
    game = new_game(seed=4)
    replies: list[pb.MoveReply] = []

    async def script(conn: Conn) -> None:
        await conn.handshake()
        await conn.send(game_start("g", game, game.to_act), decision("g", 9, game))
        replies.extend(await conn.recv_moves())
        await conn.send(shutdown())

    def explode(view: View) -> object:
        raise RuntimeError("bug in the bot")

    with caplog.at_level(logging.ERROR, logger="craits_sdk"):
        status, _ = asyncio.run(run_bot(RecordingBot(explode), [script]))
    assert status == EXIT_OK
    assert replies[0].legal_index == 0 and replies[0].decision_id == 9
    assert "bug in the bot" in caplog.text and "Traceback" in caplog.text


def test_unusable_return_value_answers_the_first_legal_move() -> None:
    game = new_game(seed=5)
    replies: list[pb.MoveReply] = []

    async def script(conn: Conn) -> None:
        await conn.handshake()
        await conn.send(game_start("g", game, game.to_act), decision("g", 1, game))
        replies.extend(await conn.recv_moves())
        await conn.send(shutdown())

    status, _ = asyncio.run(run_bot(RecordingBot(lambda view: None), [script]))
    assert status == EXIT_OK
    assert replies[0].legal_index == 0


def test_reconnects_after_a_drop_and_resumes_the_game() -> None:
    game = new_game(seed=6)
    replies: list[pb.MoveReply] = []

    async def first(conn: Conn) -> None:
        await conn.handshake()
        await conn.send(game_start("g", game, game.to_act), decision("g", 1, game))
        await conn.recv_moves()
        await conn.drop()

    async def second(conn: Conn) -> None:
        hello = await conn.expect_hello()
        assert hello.token == "secret"
        # the referee re-sends the game and the pending decision, then moves on
        await conn.send(welcome(), game_start("g", game, game.to_act), decision("g", 1, game))
        replies.extend(await conn.recv_moves())
        seen = len(game.events)
        game.apply(game.legal_moves()[replies[0].legal_index])
        while game.to_act != bot.started[0].seat:
            game.apply(game.legal_moves()[0])
        await conn.send(decision("g", 2, game, since=seen))
        replies.extend(await conn.recv_moves())
        await conn.send(shutdown())

    bot = RecordingBot()
    status, referee = asyncio.run(run_bot(bot, [first, second]))
    assert status == EXIT_OK
    assert referee.connections == 2
    assert [r.decision_id for r in replies] == [1, 2]
    assert len(bot.started) == 1, "a resumed game is not started twice"
    assert len(bot.views) == 2, "a re-sent decision is answered from memory"
    seat = bot.started[0].seat
    assert bot.views[-1].events == tuple(e.seen_by(seat) for e in game.events)
    assert bot.started[0].missing_events == 0


async def _one_decision_then_play_out(conn: Conn, game: Game, seat: int) -> int:
    """Start game "g", have the bot answer one decision, then play the game out without it;
    return how many events the bot had been sent."""
    await conn.handshake()
    await conn.send(game_start("g", game, seat), decision("g", 1, game))
    await conn.recv_moves()
    seen = len(game.events)
    while not game.is_over:
        game.apply(game.legal_moves()[0])
    return seen


def test_updates_and_game_end_reach_the_hooks_with_the_whole_history() -> None:
    game = new_game(seed=7)
    seat = game.to_act

    async def script(conn: Conn) -> None:
        seen = await _one_decision_then_play_out(conn, game, seat)
        half = (seen + len(game.events)) // 2
        update = pb.GameUpdate(game_id="g")
        end = pb.GameEnd(game_id="g", totals=[1, 2, 3], places=[1, 2, 3])
        update.events.extend(_events_pb(game, seat, seen, half))
        end.events.extend(_events_pb(game, seat, half - 3, len(game.events)))  # overlap on purpose
        await conn.send(pb.RefereeMessage(update=update), pb.RefereeMessage(game_end=end))
        await conn.send(shutdown())

    bot = RecordingBot()
    status, _ = asyncio.run(run_bot(bot, [script]))
    assert status == EXIT_OK
    assert [g for g, _ in bot.updates] == ["g"]
    (result,) = bot.ended
    assert result.places == (1, 2, 3) and result.place == 1 + seat
    assert result.events == tuple(e.seen_by(seat) for e in game.events)


class QuietBot(Bot):
    """Plays the first legal move, keeps results, never looks at the history."""

    def __init__(self) -> None:
        self.ended: list[GameResult] = []

    def decide(self, view: View) -> Move:
        return view.legal_moves[0]

    def on_game_end(self, result: GameResult) -> None:
        self.ended.append(result)


def test_a_bot_that_never_reads_the_history_never_pays_for_converting_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from craits_sdk import game as sdk_game

    converted: list[int] = []
    convert = sdk_game._event_of

    def counted(msg: pb.Event) -> Event:
        converted.append(1)
        return convert(msg)

    monkeypatch.setattr(sdk_game, "_event_of", counted)
    game = new_game(seed=7)
    seat = game.to_act

    async def script(conn: Conn) -> None:
        seen = await _one_decision_then_play_out(conn, game, seat)
        update = pb.GameUpdate(game_id="g", events=_events_pb(game, seat, seen, len(game.events)))
        await conn.send(pb.RefereeMessage(update=update),
                        pb.RefereeMessage(game_end=pb.GameEnd(game_id="g")))
        await conn.send(shutdown())

    bot = QuietBot()
    status, _ = asyncio.run(run_bot(bot, [script]))
    assert status == EXIT_OK and converted == []  # not for the update, not for the result
    (result,) = bot.ended
    assert result.events == tuple(e.seen_by(seat) for e in game.events)
    assert len(converted) == len(game.events)


def test_an_on_update_set_on_the_instance_is_called_too() -> None:
    game = new_game(seed=7)
    seat = game.to_act
    bot = QuietBot()
    heard: list[Sequence[Event]] = []
    bot.on_update = lambda game_id, events: heard.append(events)  # type: ignore[method-assign]
    sent: list[int] = []

    async def script(conn: Conn) -> None:
        sent.append(await _one_decision_then_play_out(conn, game, seat))
        events = _events_pb(game, seat, sent[0], len(game.events))
        await conn.send(pb.RefereeMessage(update=pb.GameUpdate(game_id="g", events=events)),
                        shutdown())

    status, _ = asyncio.run(run_bot(bot, [script]))
    assert status == EXIT_OK
    assert heard == [tuple(e.seen_by(seat) for e in game.events[sent[0]:])]


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        (pb.ERROR_CODE_BAD_TOKEN, EXIT_REFUSED),
        (pb.ERROR_CODE_UNSUPPORTED_VERSION, EXIT_REFUSED),
        (pb.ERROR_CODE_PROTOCOL, EXIT_FAILURE),
    ],
)
def test_fatal_error_exits_with_its_status(code: pb.ErrorCode.ValueType, expected: int) -> None:
    async def script(conn: Conn) -> None:
        await conn.expect_hello()
        await conn.send(error(code, "unknown token 'secret'"))

    status, referee = asyncio.run(run_bot(RecordingBot(), [script]))
    assert status == expected
    assert referee.connections == 1, "a refused bot does not dial again"


def test_gives_up_after_attempts_failed_dials_and_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    options = Options(f"127.0.0.1:{free_port()}", "secret", attempts=2, backoff_s=0.01)
    with caplog.at_level(logging.INFO, logger="craits_sdk"):
        status = asyncio.run(asyncio.wait_for(serve(RecordingBot(), options), 30))
    assert status == EXIT_UNREACHABLE
    messages = [r.getMessage() for r in caplog.records]
    assert [m.split(" (")[-1] for m in messages[:-1]] == ["failed dial 1 of 2)"]
    assert messages[-1].startswith(f"cannot reach the referee at {options.server} (")
    assert messages[-1].endswith("; gave up after 2 failed dials in a row")


def test_a_referee_that_welcomed_then_vanished_is_gone(caplog: pytest.LogCaptureFixture) -> None:
    async def welcome_then_close(conn: Conn) -> None:
        await conn.handshake()

    async def unavailable(conn: Conn) -> None:
        await conn.drop()

    with caplog.at_level(logging.WARNING, logger="craits_sdk"):
        status, referee = asyncio.run(
            run_bot(RecordingBot(), [welcome_then_close, unavailable], attempts=2))
    assert status == EXIT_UNREACHABLE
    assert referee.connections == 3, "the drop, then 2 failed dials"
    last = caplog.records[-1].getMessage()
    assert " is gone (" in last and last.endswith("gave up after 2 failed dials in a row")


def _events_pb(game: Game, seat: int, start: int, stop: int) -> list[pb.Event]:
    """Wire events ``start:stop`` of the game's log as ``seat`` sees them."""
    return events_to_pb([e.seen_by(seat) for e in game.events[start:stop]], start)


def test_malformed_messages_are_tolerated_and_play_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    game = new_game(seed=8)
    replies: list[pb.MoveReply] = []

    async def script(conn: Conn) -> None:
        await conn.handshake()
        bad_start = pb.GameStart(game_id="x", seat=0, players=[pb.Player(seat=4_000_000_000)])
        bad_start.rules.preset = "nonsense"
        bad_end = pb.GameEnd(game_id="x", places=[1])
        bad_end.events.add(kind="play", cards=[pb.Card()], index=0)  # a card that does not exist
        await conn.send(
            pb.RefereeMessage(game_start=bad_start),
            pb.RefereeMessage(game_end=bad_end),
            decision("g", 3, game),  # no GameStart for "g": still answered
        )
        replies.extend(await conn.recv_moves())
        await conn.send(shutdown())

    bot = RecordingBot()
    with caplog.at_level(logging.WARNING, logger="craits_sdk"):
        status, _ = asyncio.run(run_bot(bot, [script]))
    assert status == EXIT_OK
    assert [(r.game_id, r.decision_id) for r in replies] == [("g", 3)]
    assert bot.started[0].players == ("seat 0",) and bot.started[0].rules.preset == "standard"
    assert bot.ended[0].place == 1 and bot.ended[0].events[0].detail == "unreadable"
    assert "unreadable rules" in caplog.text and "never started" in caplog.text


@pytest.mark.parametrize("code", [pb.ERROR_CODE_BAD_TOKEN, pb.ERROR_CODE_ABUSE])
def test_a_bot_refused_on_reconnect_dials_again(code: pb.ErrorCode.ValueType) -> None:
    """Once welcomed, a refusal on a re-dial is retried: the referee may still hold the old
    stream (bad token), or hold back the address for a few seconds (wrong tokens from another
    client behind it: ``ABUSE``)."""
    async def welcome_then_drop(conn: Conn) -> None:
        await conn.handshake()

    async def refuse(conn: Conn) -> None:
        await conn.expect_hello()
        await conn.send(error(code, "too many wrong tokens from 10.0.0.1; wait a few seconds"))

    async def welcome_then_shut_down(conn: Conn) -> None:
        await conn.handshake()
        await conn.send(shutdown())

    status, referee = asyncio.run(run_bot(
        RecordingBot(), [welcome_then_drop, refuse, welcome_then_shut_down]))
    assert status == EXIT_OK and referee.connections == 3
