"""``craits check --sandbox`` and ``craits match --sandbox``: a bot's author sees it run in the
sandbox a contest gives it before the contest does (real bubblewrap, real processes)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # bots in real sandboxes

WRITES_ITS_DIRECTORY = ("sh -c 'touch cache.bin && exec python3 -m craits_sdk run "
                        "craits_bots.random:RandomBot'")
"""A bot that works on its author's machine and not in a contest: it writes into its own
directory, which the sandbox mounts read-only."""


def craits(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "craits", *args], cwd=home,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A bot's directory that other user ids may read (sandboxed bots get their own as root)."""
    tmp_path.chmod(0o755)
    return tmp_path


def test_check_in_the_sandbox_finds_what_only_the_sandbox_breaks(home: Path) -> None:
    plain = craits(home, "check", WRITES_ITS_DIRECTORY, "--json")
    assert plain.returncode == 0, plain.stdout
    (home / "cache.bin").unlink()
    boxed = craits(home, "check", WRITES_ITS_DIRECTORY, "--sandbox", "--json")
    assert boxed.returncode == 1
    report = json.loads(boxed.stdout)
    assert [c["name"] for c in report["checks"]] == ["connect"]
    assert "exited with status 1" in report["checks"][0]["detail"]
    assert not (home / "cache.bin").exists()


def test_a_sandboxed_match_plays_and_each_bot_is_held_in_its_groups(home: Path) -> None:
    logs = home / "logs"
    done = craits(home, "match", "--bot", "greedy", "--bot", "random", "--sandbox",
                  "--set", "short_game=true", "--log-dir", str(logs), "--json")
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["seats"]) == 2
    for name in ("greedy", "random"):
        log = (logs / f"{name}.stderr.log").read_text()
        assert "[craits: the bot's processes used" in log, log


def test_a_sandboxed_match_from_a_private_directory_says_what_to_do(tmp_path: Path) -> None:
    """As root (CI), a sandboxed bot has a user id of its own, which a 0700 directory locks
    out; as another user the sandbox runs as that user and the directory is readable."""
    home = tmp_path / "private"
    home.mkdir(mode=0o700)
    done = craits(home, "match", "--bot", "greedy", "--bot", "random", "--sandbox")
    if sandbox_uses_own_ids():
        assert done.returncode == 2
        assert "not readable by other users" in done.stderr and "chmod a+rX" in done.stderr
    else:
        assert done.returncode == 0, done.stderr


def sandbox_uses_own_ids() -> bool:
    from craits.hosting import sandbox

    return sandbox.bot_uid_used()
