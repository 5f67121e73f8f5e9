"""Protobuf messages to SDK values and back, for the bot side of the protocol.

``craits.protocol`` holds the per-value conversions (cards, moves, events, rules) and is reused
here; what it does not have, because the referee never needs it, is the reverse direction for a
whole request (observation to engine values) and the building of replies. Errors in a malformed
message surface as ``ValueError`` (``craits.protocol.ReplyError`` is one) so that the session can
answer something rather than stall.
"""

from __future__ import annotations

from collections.abc import Sequence

from craits.engine import Move, Rules, preset
from craits.protocol import move_to_pb, observation_from_pb, rules_from_pb
from craits.v1 import referee_pb2 as pb

from .game import GameInfo, GameResult
from .view import View


def game_from_start(msg: pb.GameStart) -> GameInfo:
    """A new game's state from its ``GameStart`` (rules that fail to load become ``standard``)."""
    return GameInfo(
        game_id=msg.game_id,
        seat=msg.seat,
        players=player_names(msg.players),
        rules=rules_from_start(msg),
        move_ms=msg.time_control.move_ms,
        bank_ms=msg.time_control.bank_ms,
        raw=msg,
    )


def rules_from_start(msg: pb.GameStart) -> Rules:
    """The game's rules; ``ValueError`` if the message carries none or a malformed set."""
    if not msg.HasField("rules"):
        return preset("standard")
    return rules_from_pb(msg.rules)


def player_names(players: Sequence[pb.Player]) -> tuple[str, ...]:
    """Display names by seat; one per listed player (a seat out of range is ignored)."""
    names = [f"seat {i}" for i in range(len(players))]
    for p in players:
        if p.seat < len(names) and p.name:
            names[p.seat] = p.name
    return tuple(names)


def view_from_request(req: pb.DecisionRequest, game: GameInfo) -> View:
    """The view of a decision request, with its events added to the game's history."""
    added = game.record_wire(req.observation.events)
    return View.of(
        observation_from_pb(req), game, added, decision_id=req.decision_id,
        move_ms=req.move_ms, bank_ms=req.bank_ms, raw=req,
    )


def result_from_end(msg: pb.GameEnd, game: GameInfo) -> GameResult:
    """The result of a finished game, with its last events added to the history."""
    game.record_wire(msg.events)
    return GameResult(
        game_id=msg.game_id,
        seat=game.seat,
        totals=tuple(msg.totals),
        places=tuple(msg.places),
        strikes=tuple(msg.strikes),
        forfeited=tuple(msg.forfeited),
        game=game,
        raw=msg,
    )


def move_reply(game_id: str, decision_id: int, move: Move, legal: Sequence[Move]) -> pb.BotMessage:
    """The answer naming ``move``: by index when it is listed (cheapest, unambiguous), else whole.

    A move the list does not hold is still sent as the bot chose it: the referee, not the SDK,
    decides legality and explains a refusal (a missing "one card" announcement, for one, is legal
    but penalised).
    """
    reply = pb.MoveReply(game_id=game_id, decision_id=decision_id)
    if move in legal:
        reply.legal_index = legal.index(move)
    else:
        reply.move.CopyFrom(move_to_pb(move))
    return pb.BotMessage(move=reply)


def index_reply(game_id: str, decision_id: int, index: int = 0) -> pb.BotMessage:
    """The answer naming the move at ``index`` of the request's list (the last-resort answer)."""
    return pb.BotMessage(
        move=pb.MoveReply(game_id=game_id, decision_id=decision_id, legal_index=index)
    )
