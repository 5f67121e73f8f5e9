"""Clients that hold the referee's resources without playing: ~1,100 health streams (they need
no token) and 1,500 idle TCP connections against a referee started with the usual 1,024-file
limit; a real bot still connects and plays, and the referee stays up."""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from craits.referee import listener

from ..referee.helpers import RAWBOT
from .serving import serve

pytestmark = pytest.mark.slow  # a real tournament under a flood of streams

WATCHES = 1_100
IDLE_CONNECTIONS = 1_500
CHANNELS = 4


def _watch(channels: list[grpc.Channel], streams: list[object]) -> tuple[int, int]:
    """Open ``WATCHES`` Health/Watch streams and leave them open (in ``streams``: a call
    collected is cancelled); (answered, refused)."""
    answered = refused = 0
    request = health_pb2.HealthCheckRequest(service="")
    for i in range(WATCHES):
        stream: Iterator[health_pb2.HealthCheckResponse] = health_pb2_grpc.HealthStub(
            channels[i % CHANNELS]).Watch(request)
        streams.append(stream)
        try:
            next(stream)
            answered += 1
        except grpc.RpcError as exc:
            assert exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            refused += 1
    return answered, refused


def test_health_streams_and_idle_connections_cannot_keep_a_bot_out() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, IDLE_CONNECTIONS + 2_000), hard))
    served = serve(["a", "b"], file_limit=min(1024, hard))  # the limit most systems start with
    host, _, port = served.address.rpartition(":")
    with ExitStack() as stack:
        channels = [stack.enter_context(grpc.insecure_channel(
            served.address, options=[("grpc.use_local_subchannel_pool", 1)]))
            for _ in range(CHANNELS)]
        streams: list[object] = []
        answered, refused = _watch(channels, streams)
        idle = [stack.enter_context(socket.create_connection((host, int(port))))
                for _ in range(IDLE_CONNECTIONS)]
        bots = [subprocess.Popen([sys.executable, str(RAWBOT), "good"],
                                 env={**os.environ, "CRAITS_SERVER": served.address,
                                      "CRAITS_TOKEN": token})
                for token in served.tokens.values()]
        try:
            games = served.result(timeout=180)["games"]
            assert [bot.wait(timeout=30) for bot in bots] == [0, 0]
        finally:
            served.proc.kill()
            for bot in bots:
                bot.kill()
        assert len(idle) == IDLE_CONNECTIONS and len(streams) == WATCHES
    assert answered == listener.SIDE_CALLS_MAX and refused == WATCHES - answered
    assert len(games) == 1 and not games[0]["faults"] and games[0]["hands_played"] > 0
