"""Starting bots as processes: ``python -m craits_sdk run`` and ``python -m craits_bots.<name>``."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Sequence

import grpc.aio
import pytest

from craits.v1 import referee_pb2 as pb
from craits.v1 import referee_pb2_grpc
from craits_bots.registry import launch_command
from craits_sdk.cli import main as sdk_main

from .fake_referee import (
    TIMEOUT_S,
    Conn,
    FakeReferee,
    Script,
    decision,
    error,
    game_start,
    new_game,
    shutdown,
)


async def _run_process(argv: Sequence[str], scripts: Sequence[Script]) -> tuple[int, str]:
    """Run a bot process against a fake referee; return (exit status, stderr)."""
    server = grpc.aio.server()
    referee_pb2_grpc.add_RefereeServicer_to_server(FakeReferee(scripts), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    env = {**os.environ, "CRAITS_SERVER": f"127.0.0.1:{port}", "CRAITS_TOKEN": "secret"}
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        _, err = await asyncio.wait_for(proc.communicate(), TIMEOUT_S * 3)
    finally:
        await server.stop(None)
    assert proc.returncode is not None
    return proc.returncode, err.decode()


def test_bad_token_exits_2_with_the_referees_message() -> None:
    async def refuse(conn: Conn) -> None:
        await conn.expect_hello()
        await conn.send(error(pb.ERROR_CODE_BAD_TOKEN, "unknown token; ask the organiser"))

    argv = [sys.executable, "-m", "craits_sdk", "run", "craits_bots.random:RandomBot"]
    status, err = asyncio.run(_run_process(argv, [refuse]))
    assert status == 2
    assert "unknown token; ask the organiser" in err


def test_bundled_bot_runs_as_a_module_and_answers() -> None:
    game = new_game(seed=11)
    replies: list[pb.MoveReply] = []

    async def play(conn: Conn) -> None:
        hello = await conn.handshake()
        assert hello.client == "greedy"
        await conn.send(game_start("g", game, game.to_act), decision("g", 1, game))
        replies.extend(await conn.recv_moves())
        await conn.send(shutdown())

    argv = [sys.executable, "-m", "craits_bots.greedy"]
    status, err = asyncio.run(_run_process(argv, [play]))
    assert status == 0, err
    assert replies[0].decision_id == 1 and replies[0].WhichOneof("choice") == "legal_index"


def test_registry_command_starts_the_bot_through_the_sdk() -> None:
    async def play(conn: Conn) -> None:
        await conn.handshake()
        await conn.send(shutdown())

    status, err = asyncio.run(_run_process(launch_command("random"), [play]))
    assert status == 0, err


def _run_cli(args: Sequence[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "craits_sdk", *args],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )


@pytest.mark.slow
def test_missing_server_or_token_is_a_clear_usage_error() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CRAITS_")}
    no_server = _run_cli(["run", "craits_bots.random:RandomBot"], env)
    assert no_server.returncode == 2
    assert "CRAITS_SERVER" in no_server.stderr
    no_token = _run_cli(["run", "craits_bots.random:RandomBot", "--server", "127.0.0.1:1"], env)
    assert no_token.returncode == 2
    assert "CRAITS_TOKEN" in no_token.stderr


@pytest.mark.slow
def test_a_bad_bot_spec_is_a_clear_usage_error() -> None:
    env = {**os.environ, "CRAITS_SERVER": "127.0.0.1:1", "CRAITS_TOKEN": "t"}
    for spec, words in [
        ("nocolon", "module:Class"),
        ("no_such_module_xyz:Bot", "cannot import"),
        ("craits_bots.registry:BUNDLED", "not a craits_sdk.Bot subclass"),
    ]:
        done = _run_cli(["run", spec], env)
        assert done.returncode == 2, spec
        assert words in done.stderr, done.stderr


def test_a_server_that_is_not_host_port_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["run", "craits_bots.random:RandomBot", "--token", "t", "--server", "localhost:99999"]
    assert sdk_main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("craits_sdk: error: --server 'localhost:99999' is not HOST:PORT")
