"""The pipe-bot line format: referee messages to JSON lines for the child, its answers to replies.

Kept free of I/O so the format is defined (and tested) in one place; docs/pipe-bots.md describes
it for bot authors and must change with this module. A decision line is exactly the engine's
``Observation.to_dict()`` (the same JSON a local tool would print for that seat) plus the
request's ``type``, ``game_id``, ``decision_id``, ``rules``, ``move_ms`` and ``bank_ms``, so a
child can be developed against the engine offline and run unchanged under a referee.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Final

from craits.engine import Event, Rules
from craits.protocol import observation_from_pb
from craits.v1 import referee_pb2 as pb

MAX_INDEX: Final = 2**32 - 1
"""The largest ``legal_index`` the wire can carry; bigger numbers are sent as text (refused)."""
_INDEX: Final = re.compile(r"[0-9]+")


def encode(line: dict[str, Any]) -> bytes:
    """One JSON object as one line of compact UTF-8 (no newline inside: strings are escaped)."""
    return json.dumps(line, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def decision_line(
    req: pb.DecisionRequest, rules: Rules, events: Sequence[Event], events_from: int
) -> dict[str, Any]:
    """The JSON object sent to the child for one decision (``ValueError`` if malformed)."""
    line: dict[str, Any] = {
        "type": "decision",
        "game_id": req.game_id,
        "decision_id": req.decision_id,
    }
    line.update(observation_from_pb(req, events, events_from).to_dict())
    line.update(rules=rules.to_dict(), move_ms=req.move_ms, bank_ms=req.bank_ms)
    return line


def rejected_line(msg: pb.MoveRejected, answer: str, legal_moves: Sequence[str]) -> dict[str, Any]:
    """The JSON object telling the child its answer was refused and another one is wanted.

    The legal moves are repeated so that a child which keeps no state can still answer.
    """
    return {
        "type": "rejected",
        "game_id": msg.game_id,
        "decision_id": msg.decision_id,
        "reason": msg.reason,
        "retries_left": msg.retries_left,
        "answer": answer,
        "legal_moves": list(legal_moves),
    }


def answer_reply(answer: str, game_id: str, decision_id: int) -> pb.BotMessage:
    """The reply for one answer line: a bare integer is a legal index, anything else is text.

    Nothing is validated here: a wrong answer goes to the referee as the child wrote it, so the
    refusal and its reason come from the one place that judges moves.
    """
    text = answer.strip()
    reply = pb.MoveReply(game_id=game_id, decision_id=decision_id)
    if _INDEX.fullmatch(text) and int(text) <= MAX_INDEX:
        reply.legal_index = int(text)
    else:
        reply.text = text
    return pb.BotMessage(move=reply)
