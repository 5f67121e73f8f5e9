"""TLS as a newcomer meets it: ``craits serve`` over TLS prints every variable a bot must set,
and a bot that dials the wrong way (plain to a TLS referee, or TLS to a plain one) says so at
its first failed dial instead of re-dialling for 20 s with "Socket closed".

Every referee here is a real ``craits serve`` on loopback, with certificates made by the test."""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from craits.cli.tournament_play import resume_command
from craits.referee.bridge import DEFAULT_HOST
from craits.referee.listener import TlsFiles
from craits_sdk import tlsprobe

from .certs import Certs, make_certs, make_self_signed
from .serving import Served, serve

pytestmark = pytest.mark.slow  # real referees and bots dialling them, over TLS and not

ROOT = Path(__file__).resolve().parents[2]
SDK_BOT = [sys.executable, "-m", "craits_sdk", "run", "craits_bots.greedy:GreedyBot"]
PIPE_BOT = [sys.executable, "-m", "craits", "pipe", "--", "bash",
            str(ROOT / "bots" / "pipe" / "first_legal.sh")]
JS_BOT = ["node", str(ROOT / "bots" / "js" / "bot.js")]


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    return make_certs(tmp_path_factory.mktemp("signed"))


@pytest.fixture(scope="module")
def self_signed(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    return make_self_signed(tmp_path_factory.mktemp("self"))


@pytest.fixture(scope="module")
def tls_referee(signed: Certs) -> Iterator[tuple[Served, str]]:
    """One referee over TLS with a CA-signed certificate and no ``--tls-ca``, and the line it
    printed after its bots' lines, for the tests that only read what it printed or dial it:
    none of them says Hello, so it waits for its bots all along the module (and is stopped at
    its end), and one start serves them all."""
    served = serve(["a", "b"], "--tls-cert", str(signed.cert), "--tls-key", str(signed.key),
                   "--connect-timeout", "1800")
    try:
        yield served, _next_line(served)
    finally:
        _stop(served.proc)


@pytest.fixture(scope="module")
def plain_referee() -> Iterator[Served]:
    """One plain referee, as ``tls_referee`` is one over TLS."""
    served = serve(["a", "b"], "--connect-timeout", "1800")
    try:
        yield served
    finally:
        _stop(served.proc)


def _stop(*procs: subprocess.Popen[str]) -> None:
    for proc in procs:
        proc.kill()
        proc.wait()


def _next_line(served: Served) -> str:
    """The line ``craits serve`` prints after the bots' lines."""
    assert served.proc.stderr is not None
    return served.proc.stderr.readline()


def _play(served: Served, argv: dict[str, list[str]]) -> None:
    """Start each bot with exactly the variables its printed line gives, and nothing else of
    TLS; the game must finish and every bot end well."""
    bots = []
    try:
        for name, command in argv.items():
            env = {k: v for k, v in os.environ.items() if not k.startswith("CRAITS_")}
            bots.append(subprocess.Popen(command, env={**env, **served.settings[name]},
                                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                         text=True))
        games = served.result()["games"]
        for bot in bots:
            assert bot.wait(timeout=30) == 0, bot.stderr.read() if bot.stderr else ""
    finally:
        _stop(served.proc, *bots)
    assert len(games) == 1 and not games[0]["faults"]


@pytest.mark.slow
def test_bots_that_set_what_serve_prints_for_a_self_signed_certificate_play(
    self_signed: Certs,
) -> None:
    served = serve(["sdk", "js"], "--tls-cert", str(self_signed.cert),
                   "--tls-key", str(self_signed.key))
    port = served.address.rpartition(":")[2]
    assert any(f"listening on 127.0.0.1:{port} over TLS" in line for line in served.said)
    for settings in served.settings.values():
        assert settings["CRAITS_SERVER"] == f"tls://127.0.0.1:{port}"
        assert settings["CRAITS_TLS_CA"] == str(self_signed.cert.absolute())
    assert f"needs a copy of {self_signed.cert.absolute()}" in _next_line(served)
    _play(served, {"sdk": SDK_BOT, "js": JS_BOT})  # the JS bot refuses a leaf as its CA


@pytest.mark.slow
def test_a_certificate_signed_by_a_ca_prints_the_ca_given_with_tls_ca(signed: Certs) -> None:
    served = serve(["sdk", "pipe"], "--tls-cert", str(signed.cert), "--tls-key",
                   str(signed.key), "--tls-ca", str(signed.ca))
    for settings in served.settings.values():
        assert settings["CRAITS_TLS_CA"] == str(signed.ca.absolute())
    _play(served, {"sdk": SDK_BOT, "pipe": PIPE_BOT})


def test_without_tls_ca_serve_says_which_ca_bots_need_and_how_to_print_it(
    signed: Certs, tls_referee: tuple[Served, str],
) -> None:
    served, advice = tls_referee
    # the referee cannot know the CA that signed a leaf: it says so rather than print the leaf,
    # which the SDK would accept but the JavaScript bot would not
    assert all("CRAITS_TLS_CA" not in s for s in served.settings.values())
    assert "CRAITS_TLS_CA" in advice and "--tls-ca" in advice
    assert str(signed.cert.absolute()) in advice


def test_a_plain_referee_prints_no_tls_and_no_advice(plain_referee: Served) -> None:
    served = plain_referee
    assert all(set(s) == {"CRAITS_SERVER", "CRAITS_TOKEN"} for s in served.settings.values())
    assert not served.settings["a"]["CRAITS_SERVER"].startswith("tls://")
    assert not any("TLS" in line for line in served.said)


def _dial(command: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str],
                                                             float]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CRAITS_")}
    start = time.monotonic()
    proc = subprocess.run(command, env={**clean, **env}, capture_output=True, text=True,
                          timeout=60)
    return proc, time.monotonic() - start


@pytest.mark.parametrize("client", ["sdk", "pipe"])
@pytest.mark.slow
def test_a_plain_dial_to_a_tls_referee_says_it_speaks_tls(
    tls_referee: tuple[Served, str], client: str,
) -> None:
    served, _ = tls_referee
    proc, took = _dial(SDK_BOT if client == "sdk" else PIPE_BOT,
                       {"CRAITS_SERVER": served.address, "CRAITS_TOKEN": served.tokens["a"]})
    assert proc.returncode == 3, proc.stderr
    assert f"the referee at {served.address} speaks TLS" in proc.stderr
    assert "set CRAITS_TLS_CA" in proc.stderr and f"tls://{served.address}" in proc.stderr
    assert "re-dialling" not in proc.stderr and took < 15  # at the first failed dial, not ~20 s


@pytest.mark.parametrize("client", ["sdk", "pipe"])
def test_a_tls_dial_to_a_plain_referee_says_it_speaks_plain_text(
    signed: Certs, plain_referee: Served, client: str,
) -> None:
    served = plain_referee
    proc, took = _dial(SDK_BOT if client == "sdk" else PIPE_BOT,
                       {"CRAITS_SERVER": served.address, "CRAITS_TOKEN": served.tokens["a"],
                        "CRAITS_TLS_CA": str(signed.ca)})
    assert proc.returncode == 3, proc.stderr
    assert f"the referee at {served.address} speaks plain text (no TLS)" in proc.stderr
    assert "unset CRAITS_TLS_CA" in proc.stderr
    assert "re-dialling" not in proc.stderr and took < 15


def test_a_wrong_ca_or_a_closed_port_is_not_called_a_mismatch(
    signed: Certs, tmp_path: Path,
) -> None:
    """The probe blames TLS only when the port proves it: a certificate signed by another CA is
    a different mistake, and a port with nothing behind it has nothing to prove."""
    other = make_certs(tmp_path / "other")
    served = serve(["a", "b"], "--tls-cert", str(signed.cert), "--tls-key", str(signed.key))
    try:
        proc, _ = _dial([*SDK_BOT, "--attempts", "1"],
                        {"CRAITS_SERVER": served.address, "CRAITS_TOKEN": served.tokens["a"],
                         "CRAITS_TLS_CA": str(other.ca)})
        host, _, port = served.address.rpartition(":")
        assert asyncio.run(tlsprobe.speaks_tls(host, int(port)))
        assert not asyncio.run(tlsprobe.speaks_plain_http2(host, int(port)))
    finally:
        _stop(served.proc)
    assert proc.returncode == 3 and "cannot reach the referee" in proc.stderr
    assert "speaks" not in proc.stderr
    # the port is free now: refused, so no probe, and no hint
    assert asyncio.run(tlsprobe.mismatch(served.address, False, "Socket closed")) is None
    assert asyncio.run(tlsprobe.mismatch(served.address, True, "handshake failed")) is None


def test_the_probes_tell_a_plain_referee_from_a_tls_one(plain_referee: Served) -> None:
    host, _, port = plain_referee.address.rpartition(":")
    assert asyncio.run(tlsprobe.speaks_plain_http2(host, int(port)))
    assert not asyncio.run(tlsprobe.speaks_tls(host, int(port)))


def test_the_resume_hint_serves_the_same_tls_and_names_the_same_ca(signed: Certs) -> None:
    """A resumed run must print the same CRAITS_TLS_CA to its remote bots."""
    files = TlsFiles(signed.cert, signed.key, signed.ca)
    args = argparse.Namespace(host=DEFAULT_HOST, port=0, tls=files)
    words = shlex.split(resume_command("abc", Path("/tmp/x.db"), args))
    assert words[words.index("--tls-ca") + 1] == str(signed.ca)
    assert "--tls-ca" not in resume_command(
        "abc", Path("/tmp/x.db"), argparse.Namespace(host=DEFAULT_HOST, port=0,
                                                     tls=TlsFiles(signed.cert, signed.key)))
