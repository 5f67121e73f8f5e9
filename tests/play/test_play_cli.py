"""``craits play`` as a person runs it: a real process, real bot processes, typed input."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from craits.cli.main import main
from craits.play.human import HELP

PLAY = [sys.executable, "-m", "craits", "play"]


def _play(stdin: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*PLAY, *argv], input=stdin, capture_output=True, text=True, timeout=60
    )


@pytest.mark.slow
def test_always_answering_0_plays_a_whole_game_to_a_result_table() -> None:
    proc = _play("0\n" * 5000, "--bot", "random", "--seed", "1", "--set", "short_game=true")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stdout.rstrip().splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:3] == ["place", "seat", "bot"])
    assert lines[header - 1].startswith("game play-1: seed 1, 8 hands")
    rows = [line.split() for line in lines[header + 1:]]
    assert sorted(r[2] for r in rows) == ["random", "you"]
    assert "hand 8 of 8" in proc.stdout and "game over." in proc.stdout


@pytest.mark.slow
def test_q_quits_cleanly_with_no_result() -> None:
    proc = _play("0\nq\n", "--bot", "greedy", "--bot", "random")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip().endswith("you quit: the game is abandoned.")
    assert "place" not in proc.stdout and "Traceback" not in proc.stderr


@pytest.mark.slow
def test_input_that_ends_mid_game_is_a_failure() -> None:
    proc = _play("0\n", "--bot", "random")
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.rstrip().endswith("end of input: the game is abandoned.")
    assert "Traceback" not in proc.stderr


@pytest.mark.slow
def test_a_bot_that_cannot_start_is_one_line() -> None:
    proc = _play("", "--bot", "sh -c 'exit 3'")  # starts, then dies before connecting
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "never connected" in proc.stderr
    assert "status 3" in proc.stderr and "Traceback" not in proc.stderr
    misspelt = _play("", "--bot", "gredy")
    assert misspelt.returncode == 2 and misspelt.stderr.count("\n") == 1
    assert "not a bundled bot" in misspelt.stderr and "Traceback" not in misspelt.stderr


def test_bad_settings_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--bot", "random", "--set", "nope=1"]) == 2
    assert capsys.readouterr().err.startswith("craits: error: unknown rules field")
    assert main(["play", *["--bot", "random"] * 10]) == 2
    assert "play against 1 to 9 bots, got 10" in capsys.readouterr().err


@pytest.mark.slow
def test_at_80_columns_no_line_is_longer_and_the_help_wraps_on_words() -> None:
    proc = subprocess.run([*PLAY, "--bot", "greedy", "--seed", "1"], input="0\nq\n",
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "COLUMNS": "80"})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    start = next(i for i, line in enumerate(lines) if line.startswith("answer with"))
    assert " ".join(lines[start:start + 2]) == HELP + "."  # broken between words, not in one
