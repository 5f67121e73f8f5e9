"""Protobuf messages to SDK values and back, for the bot side of the protocol.

``craits.protocol`` holds the conversions (cards, moves, events, rules, each observation field's
decoder, the cache of listed moves) and is reused here; what it does not have, because the
referee never needs it, is the wiring of a request into the lazy ``View`` and the building of
replies. Errors in a malformed message surface as ``ValueError``
(``craits.protocol.ReplyError`` is one): at once for the legal moves, so that the session can
answer the first one rather than stall, and for any other field when the bot reads it, inside
``decide``, whose failures the session already answers with the first legal move.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from craits.engine import Move, Rules, preset
from craits.protocol import OBSERVATION_DECODERS, move_to_pb, rules_from_pb
from craits.protocol import listed_moves as protocol_listed_moves
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
    """The view of a decision request, with its events added to the game's history.

    Only the legal moves are decoded now (every bot reads them, and the session's reply names
    one of them); the observation's fields are decoded when the bot reads them
    (``observed_field``). ``ValueError`` for a listed move that does not exist.
    """
    obs = req.observation
    added = game.record_wire(obs.events)
    length = game.history_len
    return View(
        game, req.decision_id, listed_moves(req), (length - added, length), obs,
        observed_field, move_ms=req.move_ms, bank_ms=req.bank_ms, raw=req,
    )


def listed_moves(req: pb.DecisionRequest) -> tuple[Move, ...]:
    """The request's legal moves (``craits.protocol.listed_moves``: each distinct encoding
    decoded once per process, for every game)."""
    return protocol_listed_moves(req.legal_moves)


def observed_field(obs: pb.Observation, name: str) -> Any:
    """The engine value of the observation's field ``name`` (a ``View`` decoder: see
    ``View.OBSERVED``); ``ValueError`` for a card, suit or phase that does not exist. The
    decoders are the protocol's own (``craits.protocol.OBSERVATION_DECODERS``)."""
    return OBSERVATION_DECODERS[name](obs)


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
    msg = pb.BotMessage()
    reply = msg.move  # filled in place: a message passed to a constructor is copied
    reply.game_id = game_id
    reply.decision_id = decision_id
    try:
        reply.legal_index = legal.index(move)
    except ValueError:
        reply.move.CopyFrom(move_to_pb(move))
    return msg


def index_reply(game_id: str, decision_id: int, index: int = 0) -> pb.BotMessage:
    """The answer naming the move at ``index`` of the request's list (the last-resort answer)."""
    msg = pb.BotMessage()
    reply = msg.move
    reply.game_id = game_id
    reply.decision_id = decision_id
    reply.legal_index = index
    return msg
