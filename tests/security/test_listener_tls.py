"""Bots over TLS: a referee serving with a certificate made in the test, and the Python SDK,
``craits pipe`` and the JavaScript bot at one table dialling it with ``CRAITS_TLS_CA``; a plain
client gets nothing from it; listening beyond loopback without TLS is warned about."""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from craits.v1 import referee_pb2 as pb
from craits.v1 import referee_pb2_grpc as pb_grpc

from .certs import Certs, make_certs
from .serving import serve

pytestmark = pytest.mark.slow  # real referees and bot processes over TLS

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = {
    "sdk": [sys.executable, "-m", "craits_sdk", "run", "craits_bots.greedy:GreedyBot"],
    "pipe": [sys.executable, "-m", "craits", "pipe", "--", "bash",
             str(ROOT / "bots" / "pipe" / "first_legal.sh")],
    "js": ["node", str(ROOT / "bots" / "js" / "bot.js")],
}


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    return make_certs(tmp_path_factory.mktemp("tls"))


@pytest.mark.slow
def test_sdk_pipe_and_js_bots_play_a_full_game_over_tls(certs: Certs) -> None:
    served = serve(list(CLIENTS), "--tls-cert", str(certs.cert), "--tls-key", str(certs.key))
    bots = []
    try:
        for name, argv in CLIENTS.items():
            env = {**os.environ, "CRAITS_SERVER": served.address,
                   "CRAITS_TOKEN": served.tokens[name], "CRAITS_TLS_CA": str(certs.ca)}
            bots.append(subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.PIPE, text=True))
        games = served.result()["games"]
        for bot in bots:
            assert bot.wait(timeout=30) == 0, bot.stderr.read() if bot.stderr else ""
    finally:
        for proc in (served.proc, *bots):
            proc.kill()
    assert len(games) == 1
    game = games[0]
    assert {s["bot"] for s in game["seats"]} == set(CLIENTS)
    assert game["hands_played"] >= 1 and not game["faults"]


def test_a_client_without_tls_gets_nothing_from_a_tls_referee(certs: Certs) -> None:
    served = serve(["a", "b"], "--tls-cert", str(certs.cert), "--tls-key", str(certs.key))
    try:
        with grpc.insecure_channel(served.address) as channel:
            hello = pb.Hello(protocol_version=pb.PROTOCOL_VERSION_1, token=served.tokens["a"])
            call = pb_grpc.RefereeStub(channel).Connect(
                iter([pb.BotPacket(messages=[pb.BotMessage(hello=hello)])]), timeout=10)
            with pytest.raises(grpc.RpcError) as caught:
                next(iter(call))
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
    finally:
        served.proc.kill()
        served.proc.wait()


def test_a_bot_given_the_wrong_ca_refuses_the_referee(certs: Certs, tmp_path: Path) -> None:
    other = make_certs(tmp_path / "other")
    served = serve(["a", "b"], "--tls-cert", str(certs.cert), "--tls-key", str(certs.key))
    try:
        env = {**os.environ, "CRAITS_SERVER": served.address, "CRAITS_TOKEN": served.tokens["a"],
               "CRAITS_TLS_CA": str(other.ca)}
        proc = subprocess.run([*CLIENTS["sdk"], "--attempts", "1"], env=env,
                              capture_output=True, text=True, timeout=60)
    finally:
        served.proc.kill()
        served.proc.wait()
    assert proc.returncode == 3  # unreachable: the certificate is not one it trusts
    assert "cannot reach the referee" in proc.stderr


def test_listening_beyond_loopback_without_tls_is_warned_about() -> None:
    served = serve(["a", "b"], "--host", "0.0.0.0")
    served.proc.kill()
    served.proc.wait()
    warning = "".join(served.said)
    assert "WITHOUT TLS" in warning and "--tls-cert" in warning


@pytest.mark.slow
def test_half_a_tls_pair_or_an_unreadable_file_is_a_usage_error(certs: Certs) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "craits", "serve", "--bot", "a", "--bot",
                               "b", *args], capture_output=True, text=True, timeout=60)

    half = run("--tls-cert", str(certs.cert))
    assert half.returncode == 2 and "give both --tls-cert and --tls-key" in half.stderr
    missing = run("--tls-cert", str(certs.cert), "--tls-key", "/nonexistent/key.pem")
    assert missing.returncode == 2 and "cannot read /nonexistent/key.pem" in missing.stderr
    swapped = run("--tls-cert", str(certs.key), "--tls-key", str(certs.cert))
    assert swapped.returncode == 2 and "is not a PEM" in swapped.stderr
    assert "Traceback" not in half.stderr + missing.stderr + swapped.stderr


@pytest.mark.slow
def test_a_tournament_served_over_tls_seats_a_remote_sdk_bot(certs: Certs, tmp_path: Path) -> None:
    token = secrets.token_urlsafe(16)
    config = tmp_path / "tls.toml"
    config.write_text(TOURNAMENT.format(token=token))
    run = subprocess.Popen(
        [sys.executable, "-m", "craits", "tournament", "run", str(config), "--json",
         "--db", str(tmp_path / "t.db"), "--tls-cert", str(certs.cert),
         "--tls-key", str(certs.key)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    bot = None
    try:
        assert run.stderr is not None
        for line in run.stderr:
            if match := REMOTE_LINE.search(line):
                break
        else:
            raise AssertionError("the tournament never said where the remote bot should dial")
        env = {**os.environ, "CRAITS_SERVER": match[1], "CRAITS_TOKEN": token,
               "CRAITS_TLS_CA": str(certs.ca)}
        bot = subprocess.Popen(CLIENTS["sdk"], env=env, stderr=subprocess.DEVNULL)
        out, _ = run.communicate(timeout=180)
        assert run.returncode == 0
        assert bot.wait(timeout=30) == 0
    finally:
        run.kill()
        if bot is not None:
            bot.kill()
    rows = {r["bot"]: r for r in json.loads(out)["rows"]}
    assert rows["friend"]["games"] == 2 and rows["friend"]["strikes"] == 0


TOURNAMENT = """
name = "over-tls"
table_size = 2
deal_sets = 1
[rules]
short_game = true
[[bots]]
name = "greedy"
[[bots]]
name = "friend"
remote = true
token = "{token}"
"""
REMOTE_LINE = re.compile(r"remote bot friend: CRAITS_SERVER=(\S+)")
