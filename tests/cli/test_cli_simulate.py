"""``craits simulate`` and the random playouts behind it (``craits.simulate``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from craits.engine import GameRecord, preset, replay
from craits.simulate import random_playout, run_random_games

from .helpers import Runner

SUMMARY_KEYS = {
    "players", "games", "seed", "rules", "decisions", "seconds", "wall_seconds",
    "decisions_per_second", "games_per_second", "mean_scores", "capped_hands", "record",
}


def test_json_summary(cli: Runner) -> None:
    result = cli("simulate", "--players", "3", "--games", "4", "--seed", "11", "--json")
    assert result.status == 0, result.err
    data = result.json()
    assert set(data) == SUMMARY_KEYS
    assert (data["players"], data["games"], data["seed"]) == (3, 4, 11)
    assert data["rules"] == preset("standard").to_dict()
    assert data["decisions"] > 0
    assert data["decisions_per_second"] > 0 and data["games_per_second"] > 0
    assert len(data["mean_scores"]) == 3
    assert data["capped_hands"] == 0
    assert data["record"] is None


def test_summary_matches_the_library(cli: Runner) -> None:
    data = cli("simulate", "--players", "5", "--games", "3", "--seed", "2", "--json",
               "--preset", "spanish", "--set", "face_cards=true").json()
    rules = preset("spanish").replace(face_cards=True)
    summary = run_random_games(rules, 5, 3, 2)
    assert data["decisions"] == summary.decisions
    assert data["mean_scores"] == [round(s, 3) for s in summary.mean_scores]
    assert data["rules"] == rules.to_dict()


def test_runs_are_deterministic() -> None:
    first = random_playout(preset("standard"), 4, seed=9, keep_moves=True)
    second = random_playout(preset("standard"), 4, seed=9, keep_moves=True)
    assert first.moves == second.moves
    assert first.outcome == second.outcome
    assert first.decisions == len(first.moves)


def test_text_summary(cli: Runner) -> None:
    result = cli("simulate", "--players", "2", "--games", "2", "--seed", "5",
                 "--preset", "spanish", "--set", "face_cards=true")
    assert result.status == 0, result.err
    rows: dict[str, str] = {}
    for line in result.out.splitlines():
        label, value = line.split("  ", 1)
        rows[label.strip()] = value.strip()
    assert list(rows) == [
        "games", "rules", "decisions", "seconds", "decisions/s", "games/s", "mean score",
        "capped hands",
    ]
    assert rows["rules"] == "spanish, face_cards=true"
    assert "seeds 5..6" in result.out
    assert result.err == ""  # no progress line: stderr is not a terminal here


def test_record_lines_replay_to_the_same_outcome(cli: Runner, tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    result = cli("simulate", "--players", "4", "--games", "3", "--seed", "40",
                 "--set", "face_cards=true", "--record", str(path), "--json")
    assert result.status == 0, result.err
    assert result.json()["record"] == str(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3
    for index, line in enumerate(lines):
        data = json.loads(line)
        record = GameRecord.from_dict(data)
        assert record.seed == 40 + index
        game = replay(record.rules, record.players, record.seed, record.moves)
        assert game.outcome is not None
        assert list(game.outcome.totals) == data["outcome"]["totals"]
        assert list(game.outcome.places) == data["outcome"]["places"]
        assert [e.to_dict() for e in game.events] == data["events"]


def test_progress_goes_to_stderr_on_a_terminal(
    cli: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    result = cli("simulate", "--games", "2", "--json")
    assert "simulating: 2/2 games" in result.err
    assert result.json()["games"] == 2  # stdout still holds only the JSON object


@pytest.mark.parametrize(
    ("option", "value", "problem"),
    [
        ("--players", "1", "must be at least 2, got 1"),
        ("--players", "11", "must be at most 10, got 11"),
        ("--games", "0", "must be at least 1, got 0"),
        ("--games", "many", "expected a whole number, got 'many'"),
    ],
)
def test_counts_out_of_range(cli: Runner, option: str, value: str, problem: str) -> None:
    cli("simulate", option, value).assert_option_error(option, problem)


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--preset", "nope"], "unknown preset 'nope'"),
        (["--set", "bogus=1"], "unknown rules field(s) 'bogus'"),
        (["--record", "/nonexistent-dir/x.jsonl"], "cannot write record file"),
    ],
)
def test_usage_errors(cli: Runner, argv: list[str], fragment: str) -> None:
    cli("simulate", *argv).assert_usage_error(fragment)


def test_bad_settings_do_not_create_the_record(cli: Runner, tmp_path: Path) -> None:
    path = tmp_path / "never.jsonl"
    cli("simulate", "--set", "bogus=1", "--record", str(path)).assert_usage_error("bogus")
    assert not path.exists()


@pytest.mark.slow
def test_simulate_as_a_process(cli_process: Runner, tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    result = cli_process("simulate", "--players", "6", "--games", "2", "--json",
                         "--record", str(path))
    assert result.status == 0, result.err
    assert result.json()["games"] == 2
    assert len(path.read_text(encoding="utf-8").splitlines()) == 2
    cli_process("simulate", "--players", "12").assert_option_error("--players", "at most 10")
