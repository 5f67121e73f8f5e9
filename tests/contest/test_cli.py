"""``craits contest``'s commands: help, and every user mistake answered with what was wrong
and how to fix it (exit 2 for usage, 1 for a failed call), never a traceback; TLS."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from craits.cli.main import main
from craits.contest.tokens import token_digest

from ..security.certs import make_certs
from .processes import craits, serve

SUBCOMMANDS = ("init", "add", "serve", "submit", "status", "standings")


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main(["contest", *map(str, args)])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


@pytest.mark.parametrize("sub", SUBCOMMANDS)
def test_help(capsys: pytest.CaptureFixture[str], sub: str) -> None:
    with pytest.raises(SystemExit) as done:
        main(["contest", sub, "--help"])
    assert done.value.code == 0
    assert "usage: craits contest " + sub in capsys.readouterr().out


def test_init_then_add(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    directory = tmp_path / "cup"
    code, out, _ = run(capsys, "init", directory)
    assert code == 0 and f"craits contest add NAME --dir {directory}" in out
    assert 'name = "cup"' in (directory / "contest.toml").read_text()
    code, _, err = run(capsys, "init", directory)
    assert code == 2 and "exists already" in err

    code, out, _ = run(capsys, "add", "alice", "--dir", directory)
    token = out.splitlines()[-1]
    assert code == 0 and token.startswith("cct_") and "shown only now" in out
    stored = b"".join(p.read_bytes() for p in directory.glob("contest.db*"))
    assert token.encode() not in stored and token_digest(token).encode() in stored
    code, _, err = run(capsys, "add", "alice", "--dir", directory)
    assert code == 2 and "a contestant called 'alice' exists already" in err
    code, out, _ = run(capsys, "add", "bob", "--dir", directory, "--json")
    assert json.loads(out)["name"] == "bob"


def test_add_without_a_contest(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "add", "alice", "--dir", tmp_path)
    assert code == 2 and "no contest here; create one with `craits contest init" in err


def test_serve_refuses_a_bad_config_and_half_tls(capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    (tmp_path / "contest.toml").write_text("[tables]\nmax_seats = 12\n")
    code, _, err = run(capsys, "serve", tmp_path)
    assert code == 2 and "tables.max_seats: must be a whole number from 2 to 10" in err
    code, _, err = run(capsys, "serve", tmp_path, "--tls-cert", tmp_path / "c.pem")
    assert code == 2 and "give both --tls-cert and --tls-key" in err


def test_serve_refuses_a_bad_ray_address_and_fewer_than_no_workers(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "serve", tmp_path, "--ray", "head-node")
    assert code == 2 and "give the address of the cluster's head as HOST:PORT" in err
    with socket.socket() as unused:  # a port nobody listens on
        unused.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{unused.getsockname()[1]}"
        code, _, err = run(capsys, "serve", tmp_path, "--ray", address)
    assert code == 2 and f"cannot reach the Ray cluster's head at {address}" in err
    code, _, err = run(capsys, "serve", tmp_path, "--ray", address, "--workers", "0")
    assert code == 2 and "--workers 0 plays the tables in this process" in err
    with pytest.raises(SystemExit) as done:
        main(["contest", "serve", str(tmp_path), "--workers", "-1"])
    assert done.value.code == 2
    assert "--workers: must be at least 0, got -1" in capsys.readouterr().err


def test_client_mistakes(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CRAITS_CONTEST_TOKEN", raising=False)
    monkeypatch.delenv("CRAITS_CONTEST_SERVER", raising=False)
    code, _, err = run(capsys, "status", "--server", "http://127.0.0.1:9")
    assert code == 2 and "give --token T (or set CRAITS_CONTEST_TOKEN)" in err
    code, _, err = run(capsys, "standings")
    assert code == 2 and "give --server URL" in err
    code, _, err = run(capsys, "standings", "--server", "127.0.0.1:8470")
    assert code == 2 and "give the contest's URL, e.g. http://" in err
    with socket.socket() as unused:  # a port nobody listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    code, _, err = run(capsys, "standings", "--server", f"http://127.0.0.1:{port}")
    assert code == 1 and "cannot reach" in err and "craits contest serve" in err
    (tmp_path / "bot").mkdir()
    code, _, err = run(capsys, "submit", "--server", "http://127.0.0.1:9", "--token", "t",
                       tmp_path / "bot")
    assert code == 1 and "no craits-bot.toml at its top level" in err
    (tmp_path / "notes.txt").write_text("hi")
    code, _, err = run(capsys, "submit", "--server", "http://127.0.0.1:9", "--token", "t",
                       tmp_path / "notes.txt")
    assert code == 1 and "one .py or .js file" in err


@pytest.mark.slow
def test_serve_over_tls_and_on_a_busy_port(tmp_path: Path) -> None:
    certs = make_certs(tmp_path / "certs")
    directory = tmp_path / "cup"
    craits("contest", "init", directory)
    with serve(directory, "--tls-cert", certs.cert, "--tls-key", certs.key) as server:
        assert server.url.startswith("https://")
        ok = craits("contest", "standings", "--server", server.url, "--ca", certs.ca)
        assert "no games played yet" in ok.stdout
        untrusted = craits("contest", "standings", "--server", server.url, check=False)
        assert untrusted.returncode == 1 and "CERTIFICATE_VERIFY_FAILED" in untrusted.stderr
        assert "Traceback" not in untrusted.stderr
        port = server.url.rsplit(":", 1)[1]
        busy = craits("contest", "serve", directory, "--port", port, check=False)
        assert busy.returncode == 2 and "cannot listen on 127.0.0.1:" in busy.stderr
        assert "Traceback" not in busy.stderr
