"""docs/pipe-bots.md stays in sync with the code: its example lines, answers and Python child."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from craits.engine import Game, Move, observe, preset
from craits.pipebot.lines import decision_line, rejected_line
from craits.protocol import moves_to_pb, observation_to_pb
from craits.v1 import referee_pb2 as pb

from .helpers import ROOT

DOC = (ROOT / "docs" / "pipe-bots.md").read_text()


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOC, flags=re.DOTALL)


def _example(kind: str) -> dict[str, object]:
    lines = [json.loads(b) for b in _blocks("json")]
    return next(x for x in lines if x["type"] == kind)


def test_the_decision_example_has_exactly_the_fields_the_pipe_sends() -> None:
    game = Game.new(preset("standard"), 3, 5)
    obs = observe(game, game.to_act)
    req = pb.DecisionRequest(
        game_id="g", decision_id=1, observation=observation_to_pb(obs),
        legal_moves=moves_to_pb(game.legal_moves()),
    )
    real = decision_line(req, preset("standard"), obs.events, 0)
    example = _example("decision")
    assert list(example) == list(real)
    assert example["rules"] == preset("standard").to_dict()
    for field in real:
        assert f"| `{field}`" in DOC or f"`{field}`," in DOC or f", `{field}`" in DOC, field


def test_the_rejected_example_has_exactly_the_fields_the_pipe_sends() -> None:
    real = rejected_line(pb.MoveRejected(game_id="g", decision_id=1), "x", [])
    assert list(_example("rejected")) == list(real)


@pytest.mark.parametrize("answer", re.findall(r"^\| `((?:play|draw|suit)[^`]*)` \|", DOC, re.M))
def test_every_documented_answer_parses(answer: str) -> None:
    assert str(Move.parse(answer)) == answer


def test_the_python_example_answers_the_example_line(tmp_path: Path) -> None:
    (child,) = _blocks("python")
    script = tmp_path / "child.py"
    script.write_text(child)
    lines = [json.dumps(_example("decision")), json.dumps(_example("rejected"))]
    proc = subprocess.run(
        [sys.executable, str(script)], input="\n".join(lines) + "\n", capture_output=True,
        text=True, timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["0", "0"]
