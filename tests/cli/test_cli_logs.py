"""Bot logs of match, check and play: a clean run leaves nothing behind, a failed one keeps them
and says where (they piled up in /tmp by the thousand)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.referee.helpers import rawbot

if TYPE_CHECKING:
    from .helpers import Runner

SHORT = ("--set", "short_game=true")


@pytest.fixture
def temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temp dir of this test's own, so that what a run leaves there can be counted."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    return tmp_path


@pytest.mark.slow
def test_a_clean_match_or_check_leaves_no_log_dir(cli: Runner, temp: Path) -> None:
    assert cli("match", "--bot", "random", "--bot", "greedy", *SHORT).status == 0
    check = cli("check", "random", "--json")
    assert check.status == 0
    assert check.json()["stderr_log"] == ""  # it was in the temp dir, now removed
    assert list(temp.iterdir()) == []


@pytest.mark.slow
def test_a_match_with_faults_keeps_its_logs_and_says_where(cli: Runner, temp: Path) -> None:
    result = cli("match", "--bot", rawbot("crash"), "--bot", "random", *SHORT)
    assert result.status == 0 and "fault: seat 0 crash" in result.out
    (kept,) = temp.iterdir()
    assert kept.name.startswith("craits-match-")
    assert result.err == f"craits: bot logs: {kept}\n"
    assert any(log.read_text() for log in kept.iterdir())


@pytest.mark.slow
def test_a_bot_that_never_connects_keeps_its_logs_in_the_one_line(cli: Runner, temp: Path) -> None:
    result = cli("match", "--bot", "sh -c 'echo oops >&2; exit 3'", "--bot", "random")
    assert result.status == 1
    (kept,) = temp.iterdir()
    assert result.err.count("\n") == 1 and result.err.endswith(f"(bot logs: {kept})\n")


def test_a_failed_check_keeps_its_log(cli: Runner, temp: Path) -> None:
    report = cli("check", rawbot("garbage"), "--json").json()
    assert not report["ok"]
    assert Path(report["stderr_log"]).parent.parent == temp


@pytest.mark.slow
def test_a_given_log_dir_is_kept_after_a_clean_run(cli: Runner, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    assert cli("match", "--bot", "random", "--bot", "greedy", *SHORT,
               "--log-dir", str(logs)).status == 0
    assert sorted(p.name for p in logs.iterdir()) == ["greedy.stderr.log", "random.stderr.log"]


@pytest.mark.slow
def test_play_quit_leaves_no_log_dir(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "craits", "play", "--bot", "random"],
                          input="q\n", capture_output=True, text=True, timeout=60,
                          env={**os.environ, "TMPDIR": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    assert list(tmp_path.iterdir()) == []

