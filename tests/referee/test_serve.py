"""``craits serve``: remote bots dial in with the tokens it prints; health and reflection answer."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from .conftest import RAWBOT

TOKEN_LINE = re.compile(r"bot (\w+): CRAITS_SERVER=(\S+) CRAITS_TOKEN=(\S+)")


def _read_tokens(proc: subprocess.Popen[str]) -> dict[str, tuple[str, str]]:
    assert proc.stderr is not None
    found: dict[str, tuple[str, str]] = {}
    while len(found) < 2:
        line = proc.stderr.readline()
        assert line, "craits serve exited before printing the tokens"
        if m := TOKEN_LINE.search(line):
            found[m[1]] = (m[2], m[3])
    return found


def _services(address: str) -> set[str]:
    with grpc.insecure_channel(address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        status = health.Check(health_pb2.HealthCheckRequest(service="craits.v1.Referee"))
        assert status.status == health_pb2.HealthCheckResponse.SERVING
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        response = next(iter(stub.ServerReflectionInfo(iter([request]))))
        return {s.name for s in response.list_services_response.service}


def test_remote_bots_play_with_printed_tokens(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "craits", "serve", "--port", "0", "--bot", "alice", "--bot", "bob",
         "--games", "2", "--set", "short_game=true", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        tokens = _read_tokens(proc)
        address = tokens["alice"][0]
        assert {"craits.v1.Referee", "grpc.health.v1.Health"} <= _services(address)
        bots = [
            subprocess.Popen([sys.executable, str(RAWBOT), "good"],
                             env={**os.environ, "CRAITS_SERVER": a, "CRAITS_TOKEN": t})
            for a, t in tokens.values()
        ]
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        for bot in bots:
            assert bot.wait(timeout=30) == 0
    finally:
        proc.kill()
    games = json.loads(out)["games"]
    assert len(games) == 2
    assert [s["bot"] for s in games[0]["seats"]] == ["alice", "bob"]
    assert [s["bot"] for s in games[1]["seats"]] == ["bob", "alice"]
    assert all(g["hands_played"] == 8 and not g["faults"] for g in games)


def test_wrong_token_is_refused_in_band(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "craits", "serve", "--port", "0", "--bot", "a", "--bot", "b",
         "--connect-timeout", "30"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        address = next(iter(_read_tokens(proc).values()))[0]
        bot = subprocess.run(
            [sys.executable, str(RAWBOT), "good"], timeout=30,
            env={**os.environ, "CRAITS_SERVER": address, "CRAITS_TOKEN": "not-a-token"},
        )
        assert bot.returncode == 2  # the raw bot exits 2 on a fatal Error from the referee
    finally:
        proc.kill()
        proc.communicate()
