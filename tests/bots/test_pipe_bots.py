"""Pipe bots (``craits pipe -- COMMAND``) playing full games over real gRPC, launched as usual."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from craits.engine import Event

from .helpers import PIPE_BOTS, SHORT, faults_of, first_legal_totals, match, pipe, spec

FIRST_LEGAL = PIPE_BOTS / "first_legal.sh"
AWK_BOT = PIPE_BOTS / "awk_bot.sh"


@pytest.mark.slow
def test_first_legal_pipe_bots_play_the_engine_game_exactly(tmp_path: Path) -> None:
    bots = [pipe("bash", FIRST_LEGAL), pipe("bash", FIRST_LEGAL)]
    result = match(bots, spec("pipe-first", seed=5), tmp_path)
    assert result.faults == [] and result.strikes == (0, 0)
    assert not any(m.defaulted for m in result.moves)
    assert result.outcome.hands_played == 8
    assert result.totals == first_legal_totals(SHORT, 2, 5)


@pytest.mark.slow
def test_awk_pipe_bot_plays_a_full_game_with_python_bots(tmp_path: Path) -> None:
    result = match([pipe("sh", AWK_BOT), "greedy", "random"], spec("pipe-awk"), tmp_path)
    assert result.faults == [] and not any(result.forfeited)
    assert not any(m.defaulted for m in result.moves)


@pytest.mark.slow
def test_garbage_answers_strike_and_forfeit_but_the_game_completes(tmp_path: Path) -> None:
    garbage = pipe("sh", "-c", "while read -r line; do echo 'garbage!'; done")
    result = match([pipe("bash", FIRST_LEGAL), garbage, "greedy"], spec("pipe-garbage"), tmp_path)
    assert result.outcome.hands_played == 8
    assert faults_of(result, 1) == ["bad_replies"] * 3
    assert "garbage!" in result.faults[0].detail
    assert result.strikes == (0, 3, 0) and result.forfeited == (False, True, False)
    assert result.places[1] == 3
    assert faults_of(result, 0) == [] and faults_of(result, 2) == []


@pytest.mark.slow
def test_a_child_that_exits_forfeits_its_seat_quickly(tmp_path: Path) -> None:
    dies = pipe("sh", "-c", "read -r line; echo 0; read -r line; exit 7")
    result = match([dies, pipe("bash", FIRST_LEGAL)], spec("pipe-dies"), tmp_path)
    assert result.outcome.hands_played == 8
    assert faults_of(result, 0) == ["bad_replies"] * 3
    assert "exited with status 7" in result.faults[0].detail
    assert result.forfeited == (True, False)
    assert result.seconds < 30


@pytest.mark.slow
def test_a_script_that_is_not_there_stops_the_pipe_and_its_seat_forfeits(
    tmp_path: Path,
) -> None:
    """``bash first_legal.sh`` from the wrong directory: bash exits 127 in every game."""
    missing = tmp_path / "no_such_script.sh"
    result = match([pipe("bash", missing), pipe("bash", FIRST_LEGAL)], spec("pipe-127"),
                   tmp_path)
    assert result.forfeited == (True, False)
    assert faults_of(result, 0) == ["crash"]
    detail = result.faults[0].detail
    assert f"pipe bot 'bash {missing}' exited with status 127 (command not found)" in detail
    assert "no game can be played" in detail


RECORDER = """
n=0
while IFS= read -r line; do
  printf '%s\\n' "$line" >> "$1"
  n=$((n + 1))
  echo "child line $n" >&2
  case $line in
    *'"type":"rejected"'*) echo 0 ;;
    *) if [ $((n % 7)) -eq 1 ]; then echo 'play ZZ'; else echo 0; fi ;;
  esac
done
"""


@pytest.mark.slow
def test_what_the_child_reads(tmp_path: Path) -> None:
    """Decision lines carry the whole history once, in order; a refusal is a rejected line."""
    record, errors = tmp_path / "lines.jsonl", tmp_path / "child.err"
    bot = pipe("sh", "-c", RECORDER, "recorder", record, options=f"--stderr {errors}")
    result = match([bot, "greedy"], spec("pipe-record"), tmp_path)
    assert result.faults == [] and result.strikes == (0, 0)
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    decisions = [x for x in lines if x["type"] == "decision"]
    rejected = [x for x in lines if x["type"] == "rejected"]
    assert len(decisions) == sum(1 for m in result.moves if m.seat == 0)
    assert rejected and all("play ZZ" in r["reason"] and r["answer"] == "play ZZ"
                            for r in rejected)
    assert all(r["retries_left"] == 2 and r["legal_moves"] for r in rejected)
    first = decisions[0]
    assert first["game_id"] == "pipe-record" and first["rules"] == SHORT.to_dict()
    assert first["move_ms"] == 3000 and first["events_from"] == 0
    seen: list[Event] = []
    for d in decisions:
        assert d["events_from"] == len(seen)
        seen += [Event.from_dict(e) for e in d["events"]]
    assert seen == [e.seen_by(0) for e in result.events[: len(seen)]]
    assert errors.read_text().splitlines()[-1] == f"child line {len(lines)}"
