"""The contest end to end, every part a real process on a free port: ``init``, ``add`` two
contestants, ``serve``, each ``submit``s over HTTP (a bot directory and a single JavaScript
file), ``status`` shows each only their own versions, the second token cannot read the first's
version, log or faults, and the board is public."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from .hostile import BOT
from .processes import craits, craits_json, serve

pytestmark = pytest.mark.slow


def test_two_contestants_submit_and_see_only_their_own(tmp_path: Path) -> None:
    contest = tmp_path / "contest"
    assert "wrote" in craits("contest", "init", contest, "--name", "E2E cup").stdout
    alice = craits_json("contest", "add", "alice", "--dir", contest, "--json")["token"]
    bob = craits_json("contest", "add", "bob", "--dir", contest, "--json")["token"]
    bot_dir = tmp_path / "alice_bot"
    bot_dir.mkdir()
    (bot_dir / "bot.py").write_bytes(BOT)
    (bot_dir / "craits-bot.toml").write_text('command = "python bot.py"\nruntime = "python"\n')
    (bot_dir / "__pycache__").mkdir()
    (bot_dir / "__pycache__" / "junk.pyc").write_bytes(b"\0" * 10)
    js = tmp_path / "bob.js"
    js.write_text("console.log('a bot');\n")

    # Uploads and who sees what; the ladder has its own test (test_contest_full).
    with serve(contest, "--api-only") as server:
        url = server.url
        first = craits("contest", "submit", "--server", url, "--token", alice, bot_dir)
        assert "stored as version 1" in first.stdout
        again = craits("contest", "submit", "--server", url, "--token", alice, bot_dir)
        assert "the same content as your version 1" in again.stdout
        his = craits_json("contest", "submit", "--server", url, "--token", bob, js, "--json")
        assert his["version"]["command"] == "node bob.js"

        mine = craits_json("contest", "status", "--server", url, "--token", alice, "--json")
        theirs = craits_json("contest", "status", "--server", url, "--token", bob, "--json")
        assert [v["source"] for v in mine["versions"]] == ["archive"]
        assert [v["source"] for v in theirs["versions"]] == ["bob.js"]
        assert mine["versions"][0]["state"] == "validating"
        text = craits("contest", "status", "--server", url, "--token", alice).stdout
        assert "alice: 1 version" in text and "validating" in text

        vid = mine["versions"][0]["id"]
        for suffix in ("", "/log", "/faults"):
            answer = httpx.get(f"{url}/api/v1/versions/{vid}{suffix}",
                               headers={"Authorization": f"Bearer {bob}"})
            assert answer.status_code == 403
            assert answer.json() == {"error": f"version {vid} is not yours: a contestant sees "
                                     "only their own versions, logs and faults"}

        board = craits_json("contest", "standings", "--server", url, "--json")
        assert board == {"contest": "E2E cup", "phase": "open", "rows": []}
        assert "no games played yet" in craits("contest", "standings", "--server", url).stdout

        refused = craits("contest", "status", "--server", url, "--token", "cct_wrong",
                         check=False)
        assert refused.returncode == 1 and "Traceback" not in refused.stderr
        assert "unknown token" in refused.stderr
    stored = list((contest / "bots").iterdir())
    assert len(stored) == 2
    assert not (stored[0] / "__pycache__").exists() and not (stored[1] / "__pycache__").exists()
