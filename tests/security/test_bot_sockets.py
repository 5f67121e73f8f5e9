"""Each sandboxed bot's own Unix socket (issue 30, part 3), attacked over real gRPC.

Every sandboxed bot used to dial one shared socket, where a stream was nobody's until its Hello:
a bot flooding it with streams that never say Hello ended, by the overall cap, the stream of an
innocent bot that had opened but not yet said Hello (a client that does not retry then exits: a
bot lost); and a token worked on it whoever dialled. On its own socket (``Referee.socket_for``)
everything a bot does before Hello counts against it alone. Each test runs the attack on the
bots' own sockets and, as the control, on the shared socket, where it works.
"""

from __future__ import annotations

import asyncio
import contextlib

import grpc
import grpc.aio
import pytest

from craits.referee import bridge, hub
from craits.referee.server import Referee, open_referee
from craits.v1 import referee_pb2 as pb
from craits.v1 import referee_pb2_grpc as pb_grpc

from .wireclient import first_message, hello, until_waiting

Call = grpc.aio.StreamStreamCall[pb.BotPacket, pb.RefereePacket]
FLOOD = 2 * hub._MAX_WAITING_HELLO


async def _silent_streams(stack: contextlib.AsyncExitStack, address: str, n: int) -> list[Call]:
    """(asyncio) ``n`` streams that never say Hello, one connection each (as a flooding bot
    would open them: grpc may run only a few streams per connection at once)."""
    calls = []
    for _ in range(n):
        channel = await stack.enter_async_context(grpc.aio.insecure_channel(
            address, options=[("grpc.use_local_subchannel_pool", 1)]))
        call = pb_grpc.RefereeStub(channel).Connect(None)
        await call.wait_for_connection()
        calls.append(call)
    return calls


async def _flood_around_a_hello(referee: Referee, victim_at: str, attacker_at: str,
                                token: str) -> str | None:
    """(asyncio) The victim opens its stream; the attacker opens ``FLOOD`` silent streams; only
    then does the victim say Hello. What the victim is told first."""
    async with contextlib.AsyncExitStack() as stack:
        channel = await stack.enter_async_context(grpc.aio.insecure_channel(victim_at))
        victim = pb_grpc.RefereeStub(channel).Connect(None)
        await until_waiting(referee.hub, 1)
        flood = await _silent_streams(stack, attacker_at, FLOOD)
        reading = asyncio.ensure_future(victim.read())
        await asyncio.wait([reading], timeout=0.5)  # an ended stream was told why
        if not reading.done():
            await victim.write(hello(token))
        try:
            packet = await asyncio.wait_for(reading, 20)
        except grpc.aio.AioRpcError:
            return None
        for call in (*flood, victim):
            call.cancel()
    if not isinstance(packet, pb.RefereePacket):
        return None
    first = packet.messages[0]
    return first.WhichOneof("payload") if not first.HasField("error") else \
        pb.ErrorCode.Name(first.error.code)


def _attack(own_sockets: bool) -> str | None:
    async def main() -> str | None:
        async with open_referee(unix_socket=True) as referee:
            token = referee.hub.issue_token("victim").token
            referee.hub.issue_token("attacker")
            if own_sockets:
                victim_at = f"unix:{referee.socket_for('victim')}"
                attacker_at = f"unix:{referee.socket_for('attacker')}"
            else:
                victim_at = attacker_at = f"unix:{referee.socket}"
            return await bridge.wait_host(
                _flood_around_a_hello(referee, victim_at, attacker_at, token))

    return bridge.run(main)


@pytest.mark.slow
def test_a_flood_of_silent_streams_on_a_bots_socket_never_ends_another_bots_stream() -> None:
    assert _attack(own_sockets=False) == "ERROR_CODE_ABUSE"  # control: the shared socket
    assert _attack(own_sockets=True) == "welcome"


def _use_anothers_token(own_sockets: bool) -> tuple[str, str]:
    """The attacker says Hello with the victim's token (as if it had learnt it): what the
    attacker is told, and what the victim's stream is told then."""
    async def main() -> tuple[str, str]:
        async with open_referee(unix_socket=True) as referee:
            token = referee.hub.issue_token("victim").token
            referee.hub.issue_token("attacker")
            shared = f"unix:{referee.socket}"
            victim_at = f"unix:{referee.socket_for('victim')}" if own_sockets else shared
            attacker_at = f"unix:{referee.socket_for('attacker')}" if own_sockets else shared
            return await bridge.wait_host(_both(victim_at, attacker_at, token))

    return bridge.run(main)


async def _both(victim_at: str, attacker_at: str, token: str) -> tuple[str, str]:
    async with grpc.aio.insecure_channel(victim_at) as one, \
            grpc.aio.insecure_channel(attacker_at) as two:
        victim = pb_grpc.RefereeStub(one).Connect(None)
        await victim.write(hello(token))
        assert _case(await victim.read()) == "welcome"
        attacker = pb_grpc.RefereeStub(two).Connect(None)
        await attacker.write(hello(token))
        told = _case(await attacker.read())
        victim_told = "nothing"
        with contextlib.suppress(TimeoutError):
            victim_told = _case(await asyncio.wait_for(victim.read(), 1.0))
        for call in (victim, attacker):
            call.cancel()
        return told, victim_told


def _case(packet: object) -> str:
    assert isinstance(packet, pb.RefereePacket)
    msg = packet.messages[0]
    return pb.ErrorCode.Name(msg.error.code) if msg.HasField("error") else \
        str(msg.WhichOneof("payload"))


@pytest.mark.slow
def test_a_bots_socket_takes_only_its_own_tokens() -> None:
    # control: on the shared socket a stolen token takes the victim's seat
    assert _use_anothers_token(own_sockets=False) == ("welcome", "ERROR_CODE_REPLACED")
    assert _use_anothers_token(own_sockets=True) == ("ERROR_CODE_BAD_TOKEN", "nothing")


def test_wrong_tokens_on_a_bots_socket_count_against_that_bot_alone() -> None:
    """A bot guessing on its own socket runs out of its budget (``ABUSE``); it costs no other
    bot's: the victim's wrong token on its own socket is still told ``BAD_TOKEN``, and its right
    one is welcomed. (The shared socket, the control, holds back no one at all.)"""
    async def main() -> tuple[list[str], list[str], list[str]]:
        async with open_referee(unix_socket=True) as referee:
            token = referee.hub.issue_token("victim").token
            referee.hub.issue_token("attacker")
            referee.hub.now = lambda: 1000.0  # no refill between dials, however slow
            mine = f"unix:{referee.socket_for('attacker')}"
            theirs = f"unix:{referee.socket_for('victim')}"
            shared = f"unix:{referee.socket}"

            async def told(at: str, token: str) -> str:
                msg = await first_message(at, hello(token))
                assert msg is not None
                return pb.ErrorCode.Name(msg.error.code) if msg.HasField("error") else \
                    str(msg.WhichOneof("payload"))

            async def run() -> tuple[list[str], list[str], list[str]]:
                guesses = [await told(mine, f"guess{i}") for i in range(hub.BAD_TOKEN_BURST + 2)]
                victim = [await told(theirs, "typo"), await told(theirs, token)]
                control = [await told(shared, f"guess{i}") for i in range(hub.BAD_TOKEN_BURST + 2)]
                return guesses, victim, control

            return await bridge.wait_host(run())

    guesses, victim, control = bridge.run(main)
    burst = hub.BAD_TOKEN_BURST
    assert guesses == ["ERROR_CODE_BAD_TOKEN"] * burst + ["ERROR_CODE_ABUSE"] * 2
    assert victim == ["ERROR_CODE_BAD_TOKEN", "welcome"]
    assert control == ["ERROR_CODE_BAD_TOKEN"] * (burst + 2)
