"""The SDK as a remote bot (issue 30, part 5): no token in plain text beyond this machine unless
told, and a refusal that a later dial can get past (``ERROR_CODE_ABUSE``) retried with backoff
even before the first Welcome."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import grpc.aio
import pytest

from craits.v1 import referee_pb2 as pb
from craits.v1 import referee_pb2_grpc
from craits_sdk import EXIT_OK, EXIT_REFUSED, Options, serve
from craits_sdk import client as sdk_client

from .fake_referee import Conn, FakeReferee, error, run_bot, shutdown
from .recording_bot import RecordingBot

FAR = "192.0.2.7:50051"
"""An address of TEST-NET-1 (RFC 5737): never this machine's, never routed."""


def test_a_plain_dial_beyond_this_machine_is_refused_with_what_to_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("CRAITS_TLS_CA", "CRAITS_ALLOW_PLAINTEXT"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ValueError, match="plain text") as refused:
        Options.resolve(FAR, "secret", 8)
    said = str(refused.value)
    assert f"CRAITS_SERVER=tls://{FAR}" in said and "CRAITS_TLS_CA=FILE" in said
    assert "CRAITS_ALLOW_PLAINTEXT=1" in said
    # what stays plain: this machine (loopback, unspecified, its own addresses), a Unix socket,
    # and a dial over TLS or one its user allowed
    for address in ("127.0.0.1:1", "localhost:1", "[::1]:1", "0.0.0.0:1", "unix:/run/x.sock"):
        assert not Options.resolve(address, "secret", 8).tls
    assert Options.resolve(f"tls://{FAR}", "secret", 8).tls
    monkeypatch.setenv("CRAITS_ALLOW_PLAINTEXT", "1")
    assert Options.resolve(FAR, "secret", 8).server == FAR


def test_the_token_never_leaves_in_plain_text_and_does_in_the_control(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The attack: whoever answers a plain dial (here a fake referee standing in for the far
    address) reads the token. With the defence the SDK never dials; the control run, allowed
    plain text, shows the token arriving in the clear."""
    monkeypatch.delenv("CRAITS_TLS_CA", raising=False)
    monkeypatch.setattr(sdk_client, "is_this_machine", lambda host: False)  # "far away"
    heard: list[str] = []

    async def listen(conn: Conn) -> None:
        heard.append((await conn.expect_hello()).token)
        await conn.send(shutdown())

    async def attempt(allow: bool) -> int | str:
        if allow:
            monkeypatch.setenv("CRAITS_ALLOW_PLAINTEXT", "1")
        else:
            monkeypatch.delenv("CRAITS_ALLOW_PLAINTEXT", raising=False)
        referee = FakeReferee([listen])
        server = grpc.aio.server()
        referee_pb2_grpc.add_RefereeServicer_to_server(referee, server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            try:
                options = Options.resolve(f"127.0.0.1:{port}", "the-token", 2)
            except ValueError as exc:
                return str(exc)
            return await asyncio.wait_for(serve(RecordingBot(), options), 10)
        finally:
            await server.stop(None)

    refused = asyncio.run(attempt(allow=False))
    assert isinstance(refused, str) and "plain text" in refused and heard == []
    assert asyncio.run(attempt(allow=True)) == EXIT_OK and heard == ["the-token"]


def test_the_sdk_process_refuses_a_far_plain_dial_before_dialling() -> None:
    env = {"CRAITS_SERVER": FAR, "CRAITS_TOKEN": "t" * 24, "PATH": "/usr/bin:/bin"}
    proc = subprocess.run(
        [sys.executable, "-m", "craits_sdk", "run", "craits_bots.random:RandomBot"],
        env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == EXIT_REFUSED
    assert "CRAITS_ALLOW_PLAINTEXT=1" in proc.stderr and "Traceback" not in proc.stderr


def test_abuse_before_any_welcome_is_retried_with_backoff() -> None:
    """A contestant behind an address that a guesser (or a flood) got held back: the referee
    says ``ABUSE``; the bot dials again and gets in (it used to exit at once)."""
    async def refuse(conn: Conn) -> None:
        await conn.expect_hello()
        await conn.send(error(pb.ERROR_CODE_ABUSE, "too many wrong tokens from 10.0.0.1"))

    async def welcome_then_shut_down(conn: Conn) -> None:
        await conn.handshake()
        await conn.send(shutdown())

    status, referee = asyncio.run(run_bot(
        RecordingBot(), [refuse, refuse, welcome_then_shut_down]))
    assert status == EXIT_OK and referee.connections == 3


def test_a_bad_token_before_any_welcome_is_still_final() -> None:
    """Retrying a token the referee never knew cannot succeed: the bot says so and exits."""
    async def refuse(conn: Conn) -> None:
        await conn.expect_hello()
        await conn.send(error(pb.ERROR_CODE_BAD_TOKEN, "unknown token"))

    status, referee = asyncio.run(run_bot(RecordingBot(), [refuse]))
    assert status == EXIT_REFUSED and referee.connections == 1
