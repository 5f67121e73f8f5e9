"""Protobuf messages to SDK values and back, for the bot side of the protocol.

``craits.protocol`` holds the per-value conversions (cards, moves, events, rules) and is reused
here; what it does not have, because the referee never needs it, is the reverse direction for a
request (its observation's fields as engine values, one at a time, for the lazy ``View``) and
the building of replies. Errors in a malformed message surface as ``ValueError``
(``craits.protocol.ReplyError`` is one): at once for the legal moves, so that the session can
answer the first one rather than stall, and for any other field when the bot reads it, inside
``decide``, whose failures the session already answers with the first legal move.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any, Final

from craits.engine import Card, Move, Phase, Rules, preset
from craits.protocol import ReplyError, card_from_pb, move_from_pb, move_to_pb, rules_from_pb
from craits.v1 import referee_pb2 as pb

from .game import GameInfo, GameResult
from .view import OBSERVED, View


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
    """The request's legal moves, each distinct encoding decoded once per process.

    Moves are immutable and few (every game lists them from the same few hundred), so one cache
    serves every game: a cache per game decoded a quarter of all listed moves afresh, one for
    every request in four, as each game met its moves for the first time.
    """
    cache, moves = _LISTED_MOVES, []
    for msg in req.legal_moves:
        key = msg.SerializeToString()
        move = cache.get(key)
        if move is None:
            move = move_from_pb(msg)  # raises before caching a malformed move
            if len(cache) >= _LISTED_MOVES_MAX:
                cache.clear()
            cache[key] = move
        moves.append(move)
    return tuple(moves)


_LISTED_MOVES: dict[bytes, Move] = {}
"""Listed moves by encoding (``listed_moves``)."""
_LISTED_MOVES_MAX: Final = 4_096
"""A bound against a referee that lists endless distinct encodings; real games use a few
hundred."""


def observed_field(obs: pb.Observation, name: str) -> Any:
    """The engine value of the observation's field ``name`` (a ``View`` decoder: see
    ``View.OBSERVED``); ``ValueError`` for a card, suit or phase that does not exist."""
    return _OBSERVED_FIELDS[name](obs)


def _hand(obs: pb.Observation) -> tuple[Card, ...]:
    return tuple([card_from_pb(c) for c in obs.hand])


def _top_card(obs: pb.Observation) -> Card:
    return card_from_pb(obs.top_card)


def _phase(obs: pb.Observation) -> Phase:
    return Phase(obs.phase)


def _active_suit(obs: pb.Observation) -> int:
    """The engine suit (0-3) of the wire's (1-4)."""
    if not 1 <= obs.active_suit <= 4:
        raise ReplyError(f"active suit {obs.active_suit} does not exist")
    return obs.active_suit - 1


def _tuple_of(name: str) -> Callable[[pb.Observation], tuple[int, ...]]:
    read = attrgetter(name)
    return lambda obs: tuple(read(obs))


_DECODED: Final[dict[str, Callable[[pb.Observation], Any]]] = {
    "hand": _hand, "top_card": _top_card, "phase": _phase, "active_suit": _active_suit,
    **{name: _tuple_of(name) for name in ("hand_sizes", "forfeits", "totals", "pressure_counts")},
}
"""Fields whose wire form is not already the engine's value."""
_OBSERVED_FIELDS: Final = {name: _DECODED.get(name) or attrgetter(name) for name in OBSERVED}
"""``View.OBSERVED`` field -> its decoder (the rest are plain integers on both sides)."""


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
