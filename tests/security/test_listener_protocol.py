"""The hub against hostile clients over real gRPC on loopback: replies sent before their request,
wrong tokens by the hundred, streams that never say Hello; and the organiser's tokens checked."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys

import grpc
import pytest
import trio

from craits.engine import preset
from craits.referee import bridge, hub, listener, tokens
from craits.referee.game import GameSpec, PlayedGame, play_game
from craits.referee.server import Referee, open_referee
from craits.tournament.plan.config import ConfigError, parse_config
from craits.v1 import referee_pb2 as pb
from craits.v1 import referee_pb2_grpc as pb_grpc

from .wireclient import WireBot, first_message, hello, until_waiting


def _with_a_guess(req: pb.DecisionRequest) -> list[pb.MoveReply]:
    """The answer, and a guess at the next decision (the next id, the first legal move)."""
    return [pb.MoveReply(game_id=req.game_id, decision_id=req.decision_id, legal_index=0),
            pb.MoveReply(game_id=req.game_id, decision_id=req.decision_id + 1, legal_index=0)]


def test_a_reply_sent_before_its_request_is_refused_not_kept_for_later() -> None:
    async def main() -> tuple[PlayedGame, WireBot]:
        async with open_referee() as referee:
            entries = [referee.hub.issue_token(n) for n in ("guesser", "plain")]
            guesser = WireBot(referee.address, entries[0].token, _with_a_guess)
            bots = [guesser, WireBot(referee.address, entries[1].token)]
            for bot in bots:
                bot.start()
            for entry in entries:
                assert await referee.hub.wait_connected(entry, 20)
            spec = GameSpec("guess", preset("standard"), 5)
            result = await play_game(spec, [referee.hub.seat_for(e) for e in entries])
            return result, guesser

    result, guesser = bridge.run(main)
    reasons = [r.reason for r in guesser.rejections]
    assert len(reasons) > 10
    assert all("had not been asked when this reply arrived" in r for r in reasons), reasons[:3]
    assert all(r.retries_left == 0 for r in guesser.rejections)
    assert result.faults == [] and not any(result.forfeited)


def test_wrong_tokens_are_limited_per_address_and_other_bots_play_on() -> None:
    tries = hub.BAD_TOKEN_BURST + 20

    async def main() -> tuple[list[int], str | None, PlayedGame]:
        async with open_referee(unix_socket=True) as referee:
            # the buckets' clock stands still: none refills between dials, however long a dial
            # takes on a loaded machine (the refill itself: tests/referee/test_hub_guards.py)
            referee.hub.now = lambda: 1000.0
            codes = []
            for i in range(tries):
                msg = await bridge.wait_host(first_message(referee.address, hello(f"guess{i}")))
                codes.append(msg.error.code if msg is not None else -1)
            entries = [referee.hub.issue_token(n) for n in ("a", "b")]
            locked = await bridge.wait_host(first_message(referee.address,
                                                          hello(entries[0].token)))
            assert locked is not None
            local = f"unix:{referee.socket}"  # the referee's own bots are not held back
            for entry in entries:
                WireBot(local, entry.token).start()
                assert await referee.hub.wait_connected(entry, 20)
            result = await play_game(GameSpec("after", preset("standard"), 3),
                                     [referee.hub.seat_for(e) for e in entries])
            return codes, locked.WhichOneof("payload"), result

    codes, locked, result = bridge.run(main)
    assert codes[: hub.BAD_TOKEN_BURST] == [pb.ERROR_CODE_BAD_TOKEN] * hub.BAD_TOKEN_BURST
    assert codes[-10:] == [pb.ERROR_CODE_ABUSE] * 10
    assert locked == "welcome"  # a right token is never refused, whatever its address did
    assert result.faults == [] and result.outcome.hands_played > 0


def test_a_stream_that_never_says_hello_is_ended(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(listener, "HELLO_TIMEOUT_S", 0.2)

    async def main() -> pb.RefereeMessage | None:
        async with open_referee() as referee:
            return await bridge.wait_host(first_message(referee.address, None, wait_s=30))

    msg = bridge.run(main)
    assert msg is not None and msg.error.code == pb.ERROR_CODE_PROTOCOL
    assert "no Hello in time" in msg.error.message


def test_the_hub_knows_a_bot_by_the_digest_of_its_token() -> None:
    token = tokens.issue()

    async def main() -> tuple[str, bool]:
        async with open_referee() as referee:
            entry = referee.hub.issue_token("far", tokens.digest(token))
            bot = WireBot(referee.address, token)
            bot.start()
            return entry.token, await referee.hub.wait_connected(entry, 20)

    assert bridge.run(main) == ("", True)


def _serve(*bots: str) -> subprocess.CompletedProcess[str]:
    args = [a for b in bots for a in ("--bot", b)]
    return subprocess.run([sys.executable, "-m", "craits", "serve", "--port", "0", *args],
                          capture_output=True, text=True, timeout=60)


@pytest.mark.slow
def test_short_or_shared_tokens_given_to_serve_are_refused_with_advice() -> None:
    short = _serve("a=letmein", "b")
    assert short.returncode == 2
    assert "bad --bot a=...: a token must be at least 22 characters" in short.stderr
    assert "secrets.token_urlsafe(16)" in short.stderr
    same = tokens.issue()
    shared = _serve(f"a={same}", f"b={same}")
    assert shared.returncode == 2 and "bots 'a' and 'b' have the same token" in shared.stderr
    assert "Traceback" not in short.stderr + shared.stderr


@pytest.mark.parametrize(("tokens_given", "error"), [
    (["short"], "bots[2].token: a token must be at least 22 characters"),
    (["x" * 30, "x" * 30], "bots: bots 'r0' and 'r1' have the same token"),
    (["bad token with spaces here"], "bots[2].token: a token is letters, digits"),
])
def test_a_tournament_files_tokens_are_checked(tokens_given: list[str], error: str) -> None:
    remote = "".join(f'[[bots]]\nname = "r{i}"\nremote = true\ntoken = "{t}"\n'
                     for i, t in enumerate(tokens_given))
    text = '[[bots]]\nname = "greedy"\n[[bots]]\nname = "random"\n' + remote
    with pytest.raises(ConfigError, match=error.replace("[", r"\[").replace("]", r"\]")):
        parse_config(text, bundled_names={"greedy", "random"})


def test_hub_refuses_a_short_or_second_copy_of_a_token() -> None:
    async def main() -> None:
        referee_hub = hub.BotHub()
        with pytest.raises(tokens.TokenError, match="at least 22"):
            referee_hub.issue_token("a", "short")
        token = tokens.issue()
        referee_hub.issue_token("a", token)
        with pytest.raises(tokens.TokenError, match="has the token of bot 'a'"):
            referee_hub.issue_token("b", tokens.digest(token))

    trio.run(main)


FLOOD = 40
ENDED = 17
"""Flood streams ended before the bot says Hello: then at least 33 were open, more than the
(lowered) overall cap of 32, so without a cap per address the bot's stream would be ended."""


def test_a_flood_of_silent_streams_from_one_address_ends_only_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bot's stream opened before the flood (and not yet said Hello) survives ``FLOOD``
    silent streams from another address, more than the referee lets wait overall: that
    address's oldest are ended instead. (The overall cap is lowered to 32 so that the flood
    stays small: a later grpc server in one test process took only ~57 new streams at once.)"""
    monkeypatch.setattr(hub, "_MAX_WAITING_HELLO", 32)
    async def main() -> tuple[list[pb.ErrorCode.ValueType], pb.RefereeMessage | None]:
        async with open_referee(unix_socket=True) as referee:
            token = referee.hub.issue_token("bot").token
            return await bridge.wait_host(_flood_then_hello(referee.hub, referee, token))

    ended, first = bridge.run(main)
    assert ended == [pb.ERROR_CODE_ABUSE] * ENDED
    assert first is not None and first.WhichOneof("payload") == "welcome"


async def _flood_then_hello(referee_hub: hub.BotHub, referee: Referee, token: str
                            ) -> tuple[list[pb.ErrorCode.ValueType], pb.RefereeMessage | None]:
    """(asyncio) Open a bot's stream on the Unix socket, flood the TCP port with ``FLOOD`` silent
    streams, then say Hello on the bot's stream; the flood's errors and the bot's answer."""
    async with contextlib.AsyncExitStack() as stack:
        bot_channel = await stack.enter_async_context(
            grpc.aio.insecure_channel(f"unix:{referee.socket}"))
        bot = pb_grpc.RefereeStub(bot_channel).Connect(None)
        await until_waiting(referee_hub, 1)
        # one connection each: grpc may let a client open only a few streams per connection
        # at a time, and this flood is about streams, whatever carries them
        flood_channels = [await stack.enter_async_context(grpc.aio.insecure_channel(
            referee.address, options=[("grpc.use_local_subchannel_pool", 1)]))
            for _ in range(FLOOD)]
        flood = [pb_grpc.RefereeStub(c).Connect(None) for c in flood_channels]
        ended = await _errors(flood, ENDED)
        await bot.write(hello(token))
        reply = await bot.read()
        for call in (*flood, bot):
            call.cancel()
    return ended, reply.messages[0] if isinstance(reply, pb.RefereePacket) else None


async def _errors(calls: list[grpc.aio.StreamStreamCall[pb.BotPacket, pb.RefereePacket]],
                  count: int) -> list[pb.ErrorCode.ValueType]:
    """The error codes of the first ``count`` of ``calls`` to be ended, whichever they are."""
    reads = [asyncio.ensure_future(call.read()) for call in calls]
    codes = []
    try:
        for done in asyncio.as_completed(reads, timeout=20):
            packet = await done
            assert isinstance(packet, pb.RefereePacket)
            codes.append(packet.messages[0].error.code)
            if len(codes) == count:
                return codes
    finally:
        for read in reads:
            read.cancel()
    raise AssertionError(f"only {len(codes)} of the flood's streams were ended")
