"""The pipe-bot line format: a decision line is the engine's observation, answers become replies."""

from __future__ import annotations

import json

import pytest

from craits.engine import Game, observe, preset
from craits.pipebot.lines import (
    MAX_INDEX,
    answer_reply,
    decision_line,
    encode,
    rejected_line,
)
from craits.protocol import event_from_pb, moves_to_pb, observation_to_pb
from craits.v1 import referee_pb2 as pb

RULES = preset("standard").replace(face_cards=True)


def _request(game: Game, since: int) -> pb.DecisionRequest:
    """What the referee sends the seat to act, as in ``RemoteSeat._request``."""
    obs = observe(game, game.to_act, since)
    return pb.DecisionRequest(
        game_id="g1", decision_id=41, observation=observation_to_pb(obs),
        legal_moves=moves_to_pb(game.legal_moves()), move_ms=900, bank_ms=7000,
    )


@pytest.mark.parametrize("steps", [0, 1, 17, 60, 200])
def test_a_decision_line_is_the_engine_observation_plus_the_request(steps: int) -> None:
    game = Game.new(RULES, 4, seed=3)
    for _ in range(steps):
        game.apply(game.legal_moves()[-1])
    since = max(0, len(game.events) - 5)
    req = _request(game, since)
    events = [event_from_pb(e) for e in req.observation.events]
    line = decision_line(req, RULES, events, since)
    expected = observe(game, game.to_act, since).to_dict()
    extras = {"type": "decision", "game_id": "g1", "decision_id": 41,
              "rules": RULES.to_dict(), "move_ms": 900, "bank_ms": 7000}
    assert line == {**expected, **extras}
    assert list(line)[:3] == ["type", "game_id", "decision_id"]
    assert json.loads(encode(line)) == line


def test_encode_is_one_line() -> None:
    data = encode({"reason": "bad move 'x\ny'", "s": "é"})
    assert data.endswith(b"\n") and data.count(b"\n") == 1
    assert json.loads(data) == {"reason": "bad move 'x\ny'", "s": "é"}


def test_a_rejected_line_repeats_the_legal_moves() -> None:
    msg = pb.MoveRejected(game_id="g", decision_id=5, reason="no", retries_left=1)
    assert rejected_line(msg, "play ZZ", ["draw", "play 7H"]) == {
        "type": "rejected", "game_id": "g", "decision_id": 5, "reason": "no",
        "retries_left": 1, "answer": "play ZZ", "legal_moves": ["draw", "play 7H"],
    }


@pytest.mark.parametrize(
    ("answer", "form", "value"),
    [
        ("0", "legal_index", 0),
        (" 12 \r", "legal_index", 12),
        (str(MAX_INDEX), "legal_index", MAX_INDEX),
        (str(MAX_INDEX + 1), "text", str(MAX_INDEX + 1)),
        ("-1", "text", "-1"),
        ("play 8C suit=H one-card", "text", "play 8C suit=H one-card"),
        ("  draw\n", "text", "draw"),
        ("", "text", ""),
        ("garbage!", "text", "garbage!"),
    ],
)
def test_an_answer_is_an_index_or_text_never_judged_here(
    answer: str, form: str, value: object
) -> None:
    reply = answer_reply(answer, "g", 9).move
    assert (reply.game_id, reply.decision_id) == ("g", 9)
    assert reply.WhichOneof("choice") == form
    assert getattr(reply, form) == value


def test_a_malformed_request_is_a_value_error() -> None:
    game = Game.new(RULES, 2, seed=1)
    req = _request(game, 0)
    req.observation.active_suit = pb.SUIT_UNSPECIFIED
    with pytest.raises(ValueError, match="suit"):
        decision_line(req, RULES, [], 0)
