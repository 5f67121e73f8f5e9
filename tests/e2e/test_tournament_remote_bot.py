"""A tournament with a remote bot: the server prints where to dial, the bot connects with the
token from the configuration, and the tournament completes with it seated like any other."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.referee.helpers import RAWBOT

pytestmark = pytest.mark.slow  # real tournaments with a remote bot process

TOKEN = "friend-secret-token-3kQ9x"
"""At least 22 characters (128 bits), as every configured token must be."""
CONFIG = f"""
name = "with-remote"
seed = 9
table_size = 2
deal_sets = 1
[rules]
short_game = true
[[bots]]
name = "greedy"
[[bots]]
name = "friend"
remote = true
token = "{TOKEN}"
"""
ADDRESS = re.compile(r"remote bot friend: CRAITS_SERVER=(\S+) CRAITS_TOKEN=(\S+)")


def test_remote_bot_joins_a_tournament_with_its_configured_token(tmp_path: Path) -> None:
    config = tmp_path / "remote.toml"
    config.write_text(CONFIG)
    run = subprocess.Popen(
        [sys.executable, "-m", "craits", "tournament", "run", str(config),
         "--db", str(tmp_path / "t.sqlite"), "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert run.stderr is not None
        for line in run.stderr:
            if match := ADDRESS.search(line):
                break
        else:
            raise AssertionError("the tournament never said where the remote bot should dial")
        # The stored configuration holds only the token's digest: the organiser has the token.
        assert match[2] == "(the" and "token given in the tournament file" in line
        bot = subprocess.Popen(
            [sys.executable, str(RAWBOT), "good"],
            env={**os.environ, "CRAITS_SERVER": match[1], "CRAITS_TOKEN": TOKEN},
        )
        out, _ = run.communicate(timeout=180)
        assert run.returncode == 0
        assert bot.wait(timeout=30) == 0  # told SHUTDOWN at the end, exits cleanly
    finally:
        run.kill()
    standings = json.loads(out)
    assert standings["games"] == 2
    rows = {r["bot"]: r for r in standings["rows"]}
    assert rows["friend"]["games"] == 2 and rows["friend"]["strikes"] == 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_a_remote_bot_told_the_address_in_advance_joins_with_port(tmp_path: Path) -> None:
    """--port fixes the referee's address, so an organiser can hand out CRAITS_SERVER before the
    run: here the bot is started first and dials until the tournament listens."""
    config = tmp_path / "remote.toml"
    config.write_text(CONFIG)
    port = _free_port()
    bot = subprocess.Popen(
        [sys.executable, "-m", "craits_sdk", "run", "craits_bots.random:RandomBot"],
        env={**os.environ, "CRAITS_SERVER": f"127.0.0.1:{port}",
             "CRAITS_TOKEN": TOKEN},
        stderr=subprocess.DEVNULL,
    )
    try:
        run = subprocess.run(
            [sys.executable, "-m", "craits", "tournament", "run", str(config), "--port",
             str(port), "--db", str(tmp_path / "t.sqlite"), "--json"],
            capture_output=True, text=True, timeout=180,
        )
        assert run.returncode == 0, run.stderr
        assert f"CRAITS_SERVER=127.0.0.1:{port} " in run.stderr
        assert bot.wait(timeout=30) == 0
    finally:
        bot.kill()
    rows = {r["bot"]: r for r in json.loads(run.stdout)["rows"]}
    assert rows["friend"]["games"] == 2


def test_a_port_in_use_is_a_clear_error(tmp_path: Path) -> None:
    config = tmp_path / "remote.toml"
    config.write_text(CONFIG)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = subprocess.run(
            [sys.executable, "-m", "craits", "tournament", "run", str(config), "--port",
             str(port), "--db", str(tmp_path / "t.sqlite")],
            capture_output=True, text=True, timeout=120,
        )
    assert run.returncode == 2
    # the header (and its notes), then one line with the OS's reason, and no log line of grpc's
    # own between
    header, *notes, error = run.stderr.splitlines()
    assert all(note.startswith("note: ") for note in notes)
    assert header.startswith("tournament ")
    assert error == (f"craits: error: cannot listen on 127.0.0.1:{port}: Address already in use;"
                     " choose another --port (or 0) and run again (no tournament was kept)")
    listed = subprocess.run(
        [sys.executable, "-m", "craits", "tournament", "list", "--db", str(tmp_path / "t.sqlite"),
         "--json"], capture_output=True, text=True, timeout=60)
    assert json.loads(listed.stdout)["tournaments"] == []
