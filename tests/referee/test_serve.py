"""``craits serve``: remote bots dial in with the tokens it prints; health and reflection answer."""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from craits.cli import serve
from craits.cli.main import main
from craits.dealkey import DealKey
from craits.engine import preset
from craits.hosting.match import run_match
from craits.referee import bridge
from craits.referee.game import GameSpec, PlayedGame, play_game
from craits.referee.hub import BotEntry, BotHub
from craits.referee.seats import InProcessSeat, Seat

from .helpers import RAWBOT

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


@pytest.mark.slow
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
    assert json.loads(out)["interrupted"] is False


@pytest.mark.slow
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


def _one_error_line(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run ``craits ARGV`` in process: exit 2 and one ``craits: error:`` line, which is returned."""
    assert main(list(argv)) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    assert captured.err.startswith("craits: error: ") and captured.err.count("\n") == 1
    return captured.err


def test_a_port_in_use_or_a_bad_host_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        err = _one_error_line(capsys, "serve", "--port", str(port), "--bot", "a", "--bot", "b")
    assert f"cannot listen on 127.0.0.1:{port}: Address already in use (try --port 0)" in err
    err = _one_error_line(capsys, "serve", "--host", "999.1.1.1", "--bot", "a", "--bot", "b")
    assert "cannot listen on 999.1.1.1:50051: unknown host" in err
    assert "(try --host 127.0.0.1, or an address of this machine)" in err
    err = _one_error_line(capsys, "serve", "--host", "192.0.2.1", "--bot", "a", "--bot", "b")
    assert "cannot listen on 192.0.2.1:50051: Cannot assign requested address (try --host" in err


def test_every_referee_user_gets_the_same_clean_error(tmp_path: Path) -> None:
    """``run_match`` (and ``check``/``play`` through ``running_bots``) raise it unwrapped."""
    spec = GameSpec("listen", preset("standard"), 1)
    with pytest.raises(bridge.ListenError, match=re.escape("cannot listen on 999.1.1.1:0")):
        bridge.run(run_match, ["random", "random"], spec, tmp_path, "999.1.1.1")


def _interrupted_in_game_2(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bots 'connect' at once and play in process; Ctrl-C lands during the second game."""
    played: list[GameSpec] = []

    async def connected(self: BotHub, entry: BotEntry, timeout_s: float) -> bool:
        return True

    async def play(spec: GameSpec, seats: list[Seat], watch: object = None) -> PlayedGame:
        played.append(spec)
        if len(played) == 2:
            raise KeyboardInterrupt
        first_legal = [InProcessSeat(n, lambda view, rules: view.legal_moves[0]) for n in "ab"]
        return await play_game(spec, first_legal)

    monkeypatch.setattr(BotHub, "wait_connected", connected)
    monkeypatch.setattr(serve, "play_game", play)


SHORT_SERVE = ("serve", "--port", "0", "--bot", "a", "--bot", "b", "--games", "3",
               "--set", "short_game=true", "--seed", "1")
SERVE_1 = DealKey.from_seed(1).game_id("serve", 0)
"""The first game's id: opaque, but fixed by the seed."""


def test_ctrl_c_keeps_the_games_already_printed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _interrupted_in_game_2(monkeypatch)
    assert main(list(SHORT_SERVE)) == 130
    captured = capsys.readouterr()
    assert captured.out.startswith(f"game {SERVE_1}: seed 1, 8 hands")
    assert DealKey.from_seed(1).game_id("serve", 1) not in captured.out
    assert captured.err.endswith("craits: interrupted\n")


def test_ctrl_c_with_json_prints_the_finished_games_marked_interrupted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _interrupted_in_game_2(monkeypatch)
    assert main([*SHORT_SERVE, "--json"]) == 130
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    data = json.loads(out)
    assert data["interrupted"] is True
    assert [g["game_id"] for g in data["games"]] == [SERVE_1]


def test_a_unix_socket_path_too_long_says_so(tmp_path: Path) -> None:
    """grpcio refuses a Unix socket path over 107 bytes with the error of a taken address; the
    referee says what is wrong and what to do (a deep ``TMPDIR`` is the usual cause)."""
    deep = tmp_path / ("d" * 120)
    deep.mkdir()

    async def bind(path: Path) -> None:
        server = grpc.aio.server()
        try:
            bridge._bind_unix(server, path)
        finally:
            await server.stop(None)

    with pytest.raises(bridge.ListenError, match=r"has \d+ bytes, more than the 107 .*TMPDIR"):
        asyncio.run(bind(deep / "referee.sock"))
    asyncio.run(bind(tmp_path / "referee.sock"))  # the control: a short path binds
    assert (tmp_path / "referee.sock").exists()
