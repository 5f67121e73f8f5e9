"""trio as the guest of asyncio (``bridge.run``): what the single-thread bridge relies on."""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import sys
import threading

import grpc
import pytest
import trio

from craits.referee import bridge
from craits.referee.hub import Session
from craits.referee.server import open_referee
from craits.v1 import referee_pb2 as pb
from craits.v1 import referee_pb2_grpc as pb_grpc


def test_run_returns_the_result_and_raises_the_error() -> None:
    async def answer(x: int) -> int:
        await trio.sleep(0)
        return x * 2

    async def fail() -> None:
        await trio.sleep(0)
        raise ValueError("from trio")

    assert bridge.run(answer, 21) == 42
    with pytest.raises(ValueError, match="from trio"):
        bridge.run(fail)


def test_trio_and_asyncio_share_one_thread() -> None:
    """An asyncio coroutine awaited from trio runs on the hosting loop, in the same thread."""

    async def on_asyncio() -> int:
        await asyncio.sleep(0.01)
        return threading.get_ident()

    async def main() -> tuple[int, int]:
        return threading.get_ident(), await bridge.wait_host(on_asyncio())

    trio_thread, asyncio_thread = bridge.run(main)
    assert trio_thread == asyncio_thread == threading.get_ident()


def test_cancelling_the_trio_side_cancels_the_asyncio_task() -> None:
    started: list[asyncio.Task[None]] = []

    async def forever() -> None:
        task = asyncio.current_task()
        assert task is not None
        started.append(task)
        await asyncio.sleep(3600)

    async def main() -> None:
        with trio.move_on_after(0.05):
            await bridge.wait_host(forever())

    bridge.run(main)
    assert started and started[0].cancelled()


def test_open_referee_under_plain_trio_run_says_how_to_start_it() -> None:
    async def main() -> None:
        async with open_referee():
            pass  # pragma: no cover - never reached

    with pytest.raises(RuntimeError, match=r"bridge\.run\(main\) instead of trio\.run"):
        trio.run(main)


def test_ctrl_c_arrives_at_a_trio_checkpoint_and_the_referee_stops_cleanly() -> None:
    """SIGINT while a referee serves a live stream: KeyboardInterrupt out of ``bridge.run``.

    Python's own SIGINT handler is put in place first: pytest started in the background by a
    shell without job control inherits SIGINT ignored (as ``craits`` itself handles, in
    ``cli/main.py``), and the signal would then never arrive.
    """
    reached: list[str] = []

    async def main() -> None:
        async with open_referee() as ref:
            channel = grpc.aio.insecure_channel(ref.address)
            call = pb_grpc.RefereeStub(channel).Connect(None)
            await bridge.wait_host(call.write(pb.BotPacket(messages=[pb.BotMessage(
                hello=pb.Hello(protocol_version=pb.PROTOCOL_VERSION_1, token="nobody"))])))
            reply = await bridge.wait_host(call.read())
            assert isinstance(reply, pb.RefereePacket)
            reached.append(reply.messages[0].error.message)
            os.kill(os.getpid(), signal.SIGINT)
            try:
                await trio.sleep(5)
            finally:
                reached.append("interrupted")
                await bridge.wait_host(channel.close(None))

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            bridge.run(main)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert reached[0].startswith("unknown token")
    assert reached[1] == "interrupted"


def test_the_gc_is_tuned_while_running_and_restored_after() -> None:
    before = gc.get_threshold()

    async def main() -> tuple[tuple[int, int, int], int]:
        await trio.sleep(0)
        return gc.get_threshold(), gc.get_freeze_count()

    during, frozen = bridge.run(main)
    assert during[0] > before[0] and frozen > 0
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_a_failing_packet_handler_ends_that_stream_only(caplog: pytest.LogCaptureFixture) -> None:
    """A bug in the hub while handling one bot's packet closes that bot's stream; the referee
    keeps serving (a second stream still gets its answer)."""

    async def main() -> tuple[bool, str]:
        async with open_referee() as ref:
            real = ref.hub.on_packet

            def broken(session: Session, packet: pb.BotPacket) -> None:
                if packet.messages[0].hello.token == "boom":
                    raise ZeroDivisionError("hub bug")
                real(session, packet)

            ref.hub.on_packet = broken  # type: ignore[method-assign]
            channel = grpc.aio.insecure_channel(ref.address)
            stub = pb_grpc.RefereeStub(channel)

            async def hello(token: str) -> object:
                call = stub.Connect(None)
                await call.write(pb.BotPacket(messages=[pb.BotMessage(
                    hello=pb.Hello(protocol_version=pb.PROTOCOL_VERSION_1, token=token))]))
                return await call.read()

            first = await bridge.wait_host(hello("boom"))
            second = await bridge.wait_host(hello("nobody"))
            await bridge.wait_host(channel.close(None))
            assert isinstance(second, pb.RefereePacket), second
            ended = first is grpc.aio.EOF  # type: ignore[attr-defined]  # not in grpc-stubs
            return ended, second.messages[0].error.message

    ended, answer = bridge.run(main)
    assert ended
    assert answer.startswith("unknown token")
    assert "the referee failed on a packet" in caplog.text


def test_a_message_composed_on_the_loops_next_pass_joins_the_packet_being_sent() -> None:
    """The writer waits one pass of the loop before taking the packet, so that what the games
    woken in that pass compose goes in the same packet (the referee's batching)."""
    sent: list[int] = []

    class Context:
        async def write(self, packet: pb.RefereePacket) -> None:
            sent.append(len(packet.messages))

    async def main() -> None:
        stream = bridge._Stream(None)
        writer = asyncio.create_task(bridge._Servicer._write(stream, Context()))
        stream.compose()
        asyncio.get_running_loop().call_soon(stream.compose)
        await asyncio.sleep(0.01)
        stream.compose()
        stream.close()
        await writer

    asyncio.run(main())
    assert sent == [2, 1]


def _raw_connect(
    address: str,
) -> tuple[grpc.aio.Channel, grpc.aio.StreamStreamCall[bytes, pb.RefereePacket]]:
    """A Connect stream whose requests are raw bytes (so a test can send what is not protobuf)."""
    channel = grpc.aio.insecure_channel(address)
    method = channel.stream_stream(
        f"/{bridge.SERVICE_NAME}/Connect",
        request_serializer=lambda raw: raw, response_deserializer=pb.RefereePacket.FromString,
    )
    return channel, method(None)


def test_a_malformed_packet_gets_an_error_in_band_and_no_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def main() -> pb.RefereePacket:
        async with open_referee() as ref:
            channel, call = _raw_connect(ref.address)

            async def exchange() -> pb.RefereePacket:
                await call.write(b"\xff\xff\xff\xff")
                reply = await call.read()
                assert isinstance(reply, pb.RefereePacket), reply
                return reply

            answer = await bridge.wait_host(exchange())
            await bridge.wait_host(channel.close(None))
            return answer

    answer = bridge.run(main)
    assert answer.messages[0].error.code == pb.ERROR_CODE_PROTOCOL
    assert answer.messages[0].error.message.startswith("malformed packet")
    assert "Traceback" not in caplog.text and "the referee failed" not in caplog.text


def test_a_stream_left_with_too_many_unsent_messages_is_ended() -> None:
    """The referee drops a bot that has left ``MAX_UNSENT`` messages unread (here composed in
    one pass, the way refusals pile up while a bot floods and never reads)."""

    async def main() -> tuple[bool, bool]:
        async with open_referee() as ref:
            entry = ref.hub.issue_token("deaf")
            channel = grpc.aio.insecure_channel(ref.address)
            call = pb_grpc.RefereeStub(channel).Connect(None)
            await bridge.wait_host(call.write(pb.BotPacket(messages=[pb.BotMessage(
                hello=pb.Hello(protocol_version=pb.PROTOCOL_VERSION_1, token=entry.token))])))
            assert await ref.hub.wait_connected(entry, 5)
            session = entry.session
            assert session is not None
            for _ in range(bridge.MAX_UNSENT + 1):
                session.compose().error.message = "x"
            with trio.move_on_after(5):
                while entry.session is not None:
                    await trio.sleep(0.01)
            gone = entry.session is None
            await bridge.wait_host(channel.close(None))
            return gone, call.cancelled() or call.done()

    gone, ended = bridge.run(main)
    assert gone and ended


def test_the_finished_run_is_not_kept_alive_by_trios_asyncgen_hooks() -> None:
    """A guest run leaves its hooks installed; they held the run's outcome (a failed run's
    traceback, and a grpc server that could not bind) until exit, which printed garbage."""
    before = sys.get_asyncgen_hooks()

    async def fail() -> None:
        await trio.sleep(0)
        raise ValueError("from trio")

    with pytest.raises(ValueError):
        bridge.run(fail)
    assert sys.get_asyncgen_hooks() == before
