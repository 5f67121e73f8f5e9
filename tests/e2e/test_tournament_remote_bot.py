"""A tournament with a remote bot: the server prints where to dial, the bot connects with the
token from the configuration, and the tournament completes with it seated like any other."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.referee.conftest import RAWBOT

CONFIG = """
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
token = "friend-secret-token"
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
        assert match[2] == "friend-secret-token"
        bot = subprocess.Popen(
            [sys.executable, str(RAWBOT), "good"],
            env={**os.environ, "CRAITS_SERVER": match[1], "CRAITS_TOKEN": match[2]},
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
