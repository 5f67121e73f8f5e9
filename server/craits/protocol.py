"""The one place that converts engine values to and from ``craits.v1`` protobuf messages.

Everything the referee sends a bot is built here from ``craits.engine`` values, and every reply is
parsed here back into an engine ``Move`` (validated against the legal moves by the caller). The
suit numbering on the wire is the engine's plus one, so that zero means "no suit".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields
from typing import Final

from google.protobuf.internal.containers import RepeatedCompositeFieldContainer

from .engine import (
    CARDS,
    Card,
    Event,
    Move,
    MoveError,
    MoveKind,
    Observation,
    Phase,
    Rules,
)
from .v1 import referee_pb2 as pb

PROTOCOL_VERSION: Final = pb.PROTOCOL_VERSION_1

_CARD_PB: Final = tuple(
    pb.Card(rank=pb.Rank.ValueType(c.rank), suit=pb.Suit.ValueType(c.suit + 1)) for c in CARDS
)
_SUIT_PB: Final = tuple(pb.Suit.ValueType(s) for s in range(5))
"""Wire suits by engine suit + 1 (0: no suit)."""
_PHASE_PB: Final = tuple(pb.Phase.ValueType(p) for p in range(max(Phase) + 1))
_KIND_TO_PB: Final = {
    MoveKind.PLAY: pb.MOVE_KIND_PLAY,
    MoveKind.DRAW: pb.MOVE_KIND_DRAW,
    MoveKind.CHOOSE_SUIT: pb.MOVE_KIND_CHOOSE_SUIT,
}
_KIND_FROM_PB: Final = {v: k for k, v in _KIND_TO_PB.items()}
_RULES_FIELDS: Final = tuple(f.name for f in fields(Rules))


class ReplyError(ValueError):
    """A bot's reply could not be understood as a move (before any legality check)."""


def card_to_pb(card: int) -> pb.Card:
    """The wire form of a card."""
    return _CARD_PB[card]


def card_from_pb(msg: pb.Card) -> Card:
    """The engine card of a wire card; ``ReplyError`` if rank or suit is missing or out of range."""
    if not (1 <= msg.rank <= 13 and 1 <= msg.suit <= 4):
        raise ReplyError(f"card with rank {msg.rank} and suit {msg.suit} does not exist")
    return CARDS[(msg.rank - 1) * 4 + msg.suit - 1]


def move_to_pb(move: Move) -> pb.Move:
    """The wire form of a move, with its text form filled in (built once per distinct move).

    Moves are interned and few (a card, a suit, the announcement), so every legal-move list of
    every game shares these messages; protobuf copies them into each request.
    """
    msg = _MOVE_PB.get(move)
    if msg is None:
        msg = _MOVE_PB[move] = pb.Move(
            kind=_KIND_TO_PB[move.kind],
            card=_CARD_PB[move.card] if move.card >= 0 else None,
            suit=pb.Suit.ValueType(move.suit + 1),
            one_card=move.one_card,
            text=str(move),
        )
    return msg


_MOVE_PB: dict[Move, pb.Move] = {}


def move_from_pb(msg: pb.Move) -> Move:
    """The engine move a structured wire move describes (its ``text`` is ignored)."""
    kind = _KIND_FROM_PB.get(msg.kind)
    if kind is None:
        raise ReplyError("move kind is missing or unknown (use PLAY, DRAW or CHOOSE_SUIT)")
    if not 0 <= msg.suit <= 4:
        raise ReplyError(f"suit {msg.suit} does not exist")
    suit = msg.suit - 1
    if kind is MoveKind.PLAY:
        return Move.play(card_from_pb(msg.card), suit, msg.one_card)
    if kind is MoveKind.DRAW:
        return Move.draw(msg.one_card)
    if suit < 0:
        raise ReplyError("a CHOOSE_SUIT move must name a suit")
    return Move.choose_suit(suit, msg.one_card)


def _reply_move(reply: pb.MoveReply, legal: Sequence[Move]) -> Move:
    return move_from_pb(reply.move)


def _reply_index(reply: pb.MoveReply, legal: Sequence[Move]) -> Move:
    if reply.legal_index >= len(legal):
        raise ReplyError(f"legal_index {reply.legal_index} is out of range (0..{len(legal) - 1})")
    return legal[reply.legal_index]


def _reply_text(reply: pb.MoveReply, legal: Sequence[Move]) -> Move:
    try:
        return Move.parse(reply.text)
    except MoveError as exc:
        raise ReplyError(str(exc)) from None


_REPLY_FORMS: Final[dict[str, Callable[[pb.MoveReply, Sequence[Move]], Move]]] = {
    "move": _reply_move,
    "legal_index": _reply_index,
    "text": _reply_text,
}


def reply_to_move(reply: pb.MoveReply, legal: Sequence[Move]) -> Move:
    """The move a reply names, in whichever of its three forms it was given."""
    form = reply.WhichOneof("choice")
    if form is None:
        raise ReplyError("the reply names no move (set move, legal_index or text)")
    return _REPLY_FORMS[form](reply, legal)


def rules_to_pb(rules: Rules) -> pb.Rules:
    """The wire form of the full rules configuration."""
    return pb.Rules(**{name: getattr(rules, name) for name in _RULES_FIELDS})


def rules_from_pb(msg: pb.Rules) -> Rules:
    """The engine rules a wire rules message describes."""
    return Rules.from_dict({name: getattr(msg, name) for name in _RULES_FIELDS})


def add_events(
    out: RepeatedCompositeFieldContainer[pb.Event], events: Sequence[Event], first_index: int
) -> None:
    """Append the wire forms of consecutive events (from log index ``first_index``) to ``out``.

    Built in place with one ``add`` call each: constructing messages and then putting them in a
    repeated field copies every one (the referee does this for every decision).
    """
    add, card = out.add, _CARD_PB
    for index, e in enumerate(events, first_index):
        if e.seat >= 0:
            add(kind=e.kind, seat=e.seat, cards=[card[c] for c in e.cards], value=e.value,
                aux=e.aux, detail=e.detail, private=e.private, index=index)
        else:
            add(kind=e.kind, cards=[card[c] for c in e.cards], value=e.value, aux=e.aux,
                detail=e.detail, private=e.private, index=index)


def event_from_pb(msg: pb.Event) -> Event:
    """The engine event of a wire event (for bots that keep the engine's types)."""
    return Event(
        kind=msg.kind,
        seat=msg.seat if msg.HasField("seat") else -1,
        cards=tuple(card_from_pb(c) for c in msg.cards),
        value=msg.value,
        aux=msg.aux,
        detail=msg.detail,
        private=msg.private,
    )


def events_to_pb(events: Sequence[Event], first_index: int) -> list[pb.Event]:
    """Wire forms of consecutive events starting at log index ``first_index``."""
    msg = pb.Observation()
    add_events(msg.events, events, first_index)
    return list(msg.events)


def observation_to_pb(obs: Observation) -> pb.Observation:
    """The wire form of a seat's observation (its events carry their log indexes)."""
    msg = pb.Observation()
    fill_observation(msg, obs)
    return msg


def fill_observation(msg: pb.Observation, obs: Observation) -> None:
    """Set the fields of an empty ``msg`` (e.g. a request's own) to the wire form of ``obs``.

    In place, and the message fields (top card, hand, events) in ONE ``MergeFromString`` of their
    cached encoded entries: building a decision request is the referee's largest cost per
    decision, and creating or copying each nested message from Python was most of it.
    """
    msg.seat = obs.seat
    msg.players = obs.players
    msg.hand_number = obs.hand_number
    msg.hands_in_game = obs.hands_in_game
    msg.deal_size = obs.deal_size
    msg.dealer = obs.dealer
    msg.direction = obs.direction
    msg.phase = _PHASE_PB[obs.phase]
    msg.to_act = obs.to_act
    msg.hand_sizes.extend(obs.hand_sizes)
    msg.stock_size = obs.stock_size
    msg.discard_size = obs.discard_size
    msg.active_suit = _SUIT_PB[obs.active_suit + 1]
    msg.count = obs.count
    msg.jack_penalty = obs.jack_penalty
    msg.king_left = obs.king_left
    msg.forfeits.extend(obs.forfeits)
    msg.totals.extend(obs.totals)
    msg.pressure_counts.extend(obs.pressure_counts)
    hand, key = _HAND_ENTRY, _OBSERVATION_EVENTS
    msg.MergeFromString(b"".join([
        _TOP_CARD_ENTRY[obs.top_card],
        *[hand[c] for c in obs.hand],
        *[_event_entry(key, i, e) for i, e in enumerate(obs.events, obs.events_from)],
    ]))


def add_update_events(msg: pb.GameUpdate, events: Sequence[Event], first_index: int) -> None:
    """Append consecutive (already redacted) events from log index ``first_index`` to
    ``msg.events``, from the same cached encodings as ``fill_observation`` (one merge)."""
    msg.MergeFromString(b"".join(
        [_event_entry(_UPDATE_EVENTS, i, e) for i, e in enumerate(events, first_index)]
    ))


def add_moves(req: pb.DecisionRequest, moves: Sequence[Move]) -> None:
    """Append the wire forms of ``moves`` to ``req.legal_moves`` (one ``MergeFromString``)."""
    req.MergeFromString(b"".join([_move_entry(m) for m in moves]))


# Encoded entries of repeated message fields, for ``MergeFromString``: each is what serializing
# a message holding just that one entry gives (field key, length, the entry). Parsing them back
# is one C call for a whole list.
_HAND_ENTRY: Final = tuple(pb.Observation(hand=[c]).SerializeToString() for c in _CARD_PB)
"""Each card as an ``Observation.hand`` entry, by engine card."""
_TOP_CARD_ENTRY: Final = tuple(pb.Observation(top_card=c).SerializeToString() for c in _CARD_PB)
"""Each card as the ``Observation.top_card`` field, by engine card."""
_MOVE_ENTRY: dict[Move, bytes] = {}
"""Each move seen so far as a ``DecisionRequest.legal_moves`` entry (moves are few)."""
_OBSERVATION_EVENTS: Final = pb.Observation(events=[pb.Event()]).SerializeToString()[:-1]
"""The field key of an ``Observation.events`` entry, as protobuf writes it (an empty event
serializes to this key and a zero length)."""
_UPDATE_EVENTS: Final = pb.GameUpdate(events=[pb.Event()]).SerializeToString()[:-1]
"""The same for ``GameUpdate.events``."""
_EVENT_BODY: dict[Event, bytes] = {}
"""Events seen so far (already redacted) as encoded ``Event`` messages without their log index.
Games repeat the same events (the same seat playing the same card...), so almost every event
of a long run is found here; cleared when full, each entry a pure function of its key."""
_EVENT_BODIES_MAX: Final = 8_192
"""About 300 bytes an entry. At 50,000 the cache was what grew in a long tournament: 15 MB of
the runner's memory after ~600 games, mostly one-off entries (deals, draws, running totals).
Measured over 1,500 short 4-seat games, 8,192 entries find 96.5% of the events sent, against
97.4% for 50,000 (docs/benchmarks.md, "Memory")."""
_INDEX_FIELD: list[bytes] = []
"""``Event.index = i`` encoded, by i (grown on demand)."""


def _move_entry(move: Move) -> bytes:
    entry = _MOVE_ENTRY.get(move)
    if entry is None:
        one = pb.DecisionRequest(legal_moves=[move_to_pb(move)])
        entry = _MOVE_ENTRY[move] = one.SerializeToString()
    return entry


def _event_entry(key: bytes, index: int, event: Event) -> bytes:
    """``event`` at log ``index`` as an entry of the events field whose field key is ``key``.

    The cached body and the index field are concatenated: appending an encoded field to an
    encoded message sets that field (protobuf's merge-by-concatenation), so only the entry's
    length prefix is written here rather than by protobuf.
    """
    body = _EVENT_BODY.get(event)
    if body is None:
        body = _event_body(event)
    if index >= len(_INDEX_FIELD):
        _grow_index_fields(index)
    body += _INDEX_FIELD[index]
    return key + _varint(len(body)) + body


def _event_body(event: Event) -> bytes:
    """Encode ``event`` without its index and cache it (the cache is cleared when full)."""
    if len(_EVENT_BODY) >= _EVENT_BODIES_MAX:
        _EVENT_BODY.clear()
    one = pb.Observation()
    add_events(one.events, (event,), 0)
    body = _EVENT_BODY[event] = one.events[0].SerializeToString()
    return body


def _grow_index_fields(index: int) -> None:
    """Extend ``_INDEX_FIELD`` up to ``index``."""
    while len(_INDEX_FIELD) <= index:
        _INDEX_FIELD.append(pb.Event(index=len(_INDEX_FIELD)).SerializeToString())


_ONE_BYTE: Final = tuple(bytes((n,)) for n in range(0x80))
"""The varints of 0-127, which are one byte each (every entry length of a typical event)."""


def _varint(n: int) -> bytes:
    """Protobuf's base-128 varint of a non-negative ``n`` (low 7-bit groups first)."""
    if n < 0x80:
        return _ONE_BYTE[n]
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def observation_from_pb(
    req: pb.DecisionRequest, events: Sequence[Event] = (), events_from: int = 0
) -> Observation:
    """The engine observation a request describes (the bot side's inverse of the above).

    The history is passed in rather than converted from the request because bots keep it their
    own way: the SDK converts wire events only when a bot reads them, and the pipe bot adds the
    ones that arrived in ``GameUpdate`` messages and drops any re-sent after a reconnect.
    ``ValueError`` (``ReplyError``) for a card, move or suit that does not exist.
    """
    obs = req.observation
    return Observation(
        seat=obs.seat,
        players=obs.players,
        hand_number=obs.hand_number,
        hands_in_game=obs.hands_in_game,
        deal_size=obs.deal_size,
        dealer=obs.dealer,
        direction=obs.direction,
        phase=Phase(obs.phase),
        to_act=obs.to_act,
        hand=tuple(card_from_pb(c) for c in obs.hand),
        hand_sizes=tuple(obs.hand_sizes),
        stock_size=obs.stock_size,
        discard_size=obs.discard_size,
        top_card=card_from_pb(obs.top_card),
        active_suit=_suit_index(obs.active_suit),
        count=obs.count,
        jack_penalty=obs.jack_penalty,
        king_left=obs.king_left,
        forfeits=tuple(obs.forfeits),
        totals=tuple(obs.totals),
        pressure_counts=tuple(obs.pressure_counts),
        legal_moves=tuple([_listed_move(m) for m in req.legal_moves]),
        events=tuple(events),
        events_from=events_from,
    )


_LISTED_MOVES: dict[bytes, Move] = {}
"""Legal-move messages seen so far in requests, by encoding: a request lists ~5-10 moves out of a
few hundred possible ones, and decoding each field by field was most of decoding a request."""
_LISTED_MOVES_MAX: Final = 10_000


def _listed_move(msg: pb.Move) -> Move:
    """``move_from_pb`` of a request's listed move, cached by its encoding (bot side)."""
    key = msg.SerializeToString()
    move = _LISTED_MOVES.get(key)
    if move is None:
        move = move_from_pb(msg)  # raises before anything is cached for a malformed move
        if len(_LISTED_MOVES) >= _LISTED_MOVES_MAX:
            _LISTED_MOVES.clear()
        _LISTED_MOVES[key] = move
    return move


def _suit_index(wire_suit: int) -> int:
    """The engine suit (0-3) of a wire suit (1-4)."""
    if not 1 <= wire_suit <= 4:
        raise ReplyError(f"active suit {wire_suit} does not exist")
    return wire_suit - 1


def moves_to_pb(moves: Sequence[Move]) -> list[pb.Move]:
    """Wire forms of the legal moves, in order."""
    return [move_to_pb(m) for m in moves]
