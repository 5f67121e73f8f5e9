"""``PollingClock``: trio polls for a moment after each message to a bot, and sleeps otherwise."""

from __future__ import annotations

import time

import grpc
import pytest
import trio

from craits.referee import bridge
from craits.referee.bridge import PollingClock, _Stream
from craits.referee.server import open_referee
from craits.v1 import referee_pb2 as pb
from craits.v1 import referee_pb2_grpc as pb_grpc


class FakeTime:
    """A settable ``time.perf_counter`` stand-in."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _clock() -> tuple[FakeTime, PollingClock]:
    """A clock with a 1 ms window on a fake time source."""
    now = FakeTime()
    return now, PollingClock(poll_s=0.001, now=now)


def test_trio_may_sleep_until_the_deadline_when_no_message_went_out() -> None:
    _, clock = _clock()
    deadline = clock.current_time() + 5.0
    assert clock.deadline_to_sleep_time(deadline) == 5.0


def test_trio_polls_within_the_window_after_a_message_and_sleeps_after_it() -> None:
    now, clock = _clock()
    deadline = clock.current_time() + 5.0
    clock.poll_soon()
    now.now += 0.0009
    assert clock.deadline_to_sleep_time(deadline) == 0.0
    now.now += 0.0002
    assert abs(clock.deadline_to_sleep_time(deadline) - (5.0 - 0.0011)) < 1e-9


def test_each_message_extends_the_window_from_its_own_time() -> None:
    now, clock = _clock()
    far = clock.current_time() + 60.0
    clock.poll_soon()
    now.now += 0.0008
    clock.poll_soon()
    now.now += 0.0008
    assert clock.deadline_to_sleep_time(far) == 0.0
    now.now += 0.0003
    assert clock.deadline_to_sleep_time(far) > 59.0


def test_the_time_is_the_system_time_plus_a_fixed_offset() -> None:
    now = FakeTime()
    clock = PollingClock(now=now)
    first = clock.current_time()
    now.now += 2.5
    assert clock.current_time() - first == 2.5
    assert abs(first - now.now) > 1000  # mixing it up with perf_counter would show at once


def test_composing_a_message_for_a_bot_starts_a_poll() -> None:
    _, clock = _clock()
    far = clock.current_time() + 60.0
    stream = _Stream(clock)
    assert clock.deadline_to_sleep_time(far) == 60.0
    stream.compose()
    assert clock.deadline_to_sleep_time(far) == 0.0


def test_bridge_run_polls_with_it_and_deadlines_still_hold() -> None:
    """While a task keeps the poll going (as bots being sent messages do), trio's sleeps still
    end on time: the task's 0.5 ms naps, and a 50 ms timeout that fires neither early nor late."""

    async def main() -> tuple[bool, float, int]:
        clock = trio.lowlevel.current_clock()
        assert isinstance(clock, PollingClock)
        naps = 0

        async def keep_polling() -> None:
            nonlocal naps
            while True:
                clock.poll_soon()
                await trio.sleep(0.0005)
                naps += 1

        async with trio.open_nursery() as nursery:
            nursery.start_soon(keep_polling)
            started = time.perf_counter()
            with trio.move_on_after(0.05) as scope:
                await trio.sleep_forever()
            elapsed = time.perf_counter() - started
            nursery.cancel_scope.cancel()
        return scope.cancelled_caught, elapsed, naps

    fired, elapsed, naps = bridge.run(main)
    assert fired
    assert 0.05 <= elapsed < 2.0
    assert naps >= 10


def test_a_referee_whose_bots_are_silent_stops_polling() -> None:
    """After the window, trio sleeps: a third of a second of waiting costs almost no CPU (a
    poll that never lapsed would spend all of it)."""

    async def main() -> float:
        clock = trio.lowlevel.current_clock()
        assert isinstance(clock, PollingClock)
        clock.poll_soon()
        cpu = time.process_time()
        await trio.sleep(0.3)
        return time.process_time() - cpu

    assert bridge.run(main) < 0.1


def test_a_referee_stream_starts_the_runs_poll_when_it_answers_a_bot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The bridge hands the run's clock to its streams: the referee's answer to a Hello (here,
    an error for an unknown token) starts a poll."""
    polls: list[PollingClock] = []
    real = PollingClock.poll_soon

    def counted(self: PollingClock) -> None:
        polls.append(self)
        real(self)

    monkeypatch.setattr(PollingClock, "poll_soon", counted)

    async def main() -> tuple[str, bool]:
        async with open_referee() as ref:
            channel = grpc.aio.insecure_channel(ref.address)
            call = pb_grpc.RefereeStub(channel).Connect(None)
            hello = pb.Hello(protocol_version=pb.PROTOCOL_VERSION_1, token="nobody")
            await bridge.wait_host(call.write(pb.BotPacket(messages=[pb.BotMessage(hello=hello)])))
            reply = await bridge.wait_host(call.read())
            await bridge.wait_host(channel.close(None))
            assert isinstance(reply, pb.RefereePacket)
            run_clock = trio.lowlevel.current_clock()
            return reply.messages[0].error.message, bool(polls) and polls[0] is run_clock

    message, polled_by_the_run_clock = bridge.run(main)
    assert message.startswith("unknown token")
    assert polled_by_the_run_clock
