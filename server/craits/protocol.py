"""The one place that converts engine values to and from ``craits.v1`` protobuf messages.

Everything the referee sends a bot is built here from ``craits.engine`` values, and every reply is
parsed here back into an engine ``Move`` (validated against the legal moves by the caller). The
suit numbering on the wire is the engine's plus one, so that zero means "no suit".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields
from operator import attrgetter
from typing import Any, Final

from google.protobuf.internal.containers import RepeatedCompositeFieldContainer

from .engine import (
    CARDS,
    Card,
    Event,
    EventKind,
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


def suit_from_pb(wire_suit: int, what: str = "suit", *, optional: bool = False) -> int:
    """The engine suit (0-3) of a wire suit (1-4), or -1 for the wire's 0 (no suit) where the
    suit is ``optional``; ``ReplyError`` naming ``what`` for a suit that does not exist."""
    if not (0 if optional else 1) <= wire_suit <= 4:
        raise ReplyError(f"{what} {wire_suit} does not exist")
    return wire_suit - 1


def move_from_pb(msg: pb.Move) -> Move:
    """The engine move a structured wire move describes (its ``text`` is ignored)."""
    kind = _KIND_FROM_PB.get(msg.kind)
    if kind is None:
        raise ReplyError("move kind is missing or unknown (use PLAY, DRAW or CHOOSE_SUIT)")
    suit = suit_from_pb(msg.suit, optional=True)
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
    """The engine event of a wire event (for bots that keep the engine's types); ``ReplyError``
    for a kind the engine does not log."""
    try:
        kind = EventKind(msg.kind)
    except ValueError:
        raise ReplyError(f"event kind {msg.kind!r} does not exist") from None
    return Event(
        kind=kind,
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
    for name, index in _PLAIN_FIELDS:
        setattr(msg, name, obs[index])
    for name, index in _LIST_FIELDS:
        getattr(msg, name).extend(obs[index])
    msg.phase = _PHASE_PB[obs.phase]
    msg.active_suit = _SUIT_PB[obs.active_suit + 1]
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
        **{name: decode(obs) for name, decode in OBSERVATION_DECODERS.items()},
        legal_moves=listed_moves(req.legal_moves),
        events=tuple(events),
        events_from=events_from,
    )


def listed_moves(msgs: Iterable[pb.Move]) -> tuple[Move, ...]:
    """A request's legal moves, each distinct encoding decoded once per process.

    Moves are immutable and few (every game lists them from the same few hundred), so one cache
    serves every game and both sides (the pipe bot's ``observation_from_pb``, the SDK's views):
    decoding each field by field was most of decoding a request, and a cache per game decoded a
    quarter of all listed moves afresh, one for every request in four. ``ReplyError`` for a move
    that does not exist, before anything is cached.
    """
    cache, moves = _LISTED_MOVES, []
    for msg in msgs:
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


# The observation's fields on the wire, derived from ``Observation`` and the message's
# descriptor: a field added to both reaches both directions with no code here, unless its wire
# form differs from the engine's (then it needs an entry in ``_ENCODED_OTHERWISE`` and
# ``_DECODERS``); a field in one and not the other fails at import (and
# tests/protocol/test_observation_fields.py, which compares the SDK's ``View`` too).
OFF_THE_WIRE_OBSERVATION: Final = {
    "legal_moves": "sent beside the observation, in DecisionRequest.legal_moves",
    "events_from": "each wire event carries its own log index",
}
"""``Observation`` fields that ``pb.Observation`` does not hold, and why."""
_WIRE_FIELDS: Final = {f.name: f for f in pb.Observation.DESCRIPTOR.fields}
_ENGINE_FIELDS: Final = Observation._fields


def _check_observation_fields() -> None:
    """Refuse to run with an ``Observation`` and a ``pb.Observation`` that disagree (a field
    added to one only would otherwise never reach a bot, or reach it empty)."""
    unmatched = set(_ENGINE_FIELDS) ^ _WIRE_FIELDS.keys() ^ OFF_THE_WIRE_OBSERVATION.keys()
    if unmatched:
        raise RuntimeError(f"Observation and pb.Observation disagree on {sorted(unmatched)}")


_check_observation_fields()
_ENCODED_OTHERWISE: Final = frozenset({"phase", "active_suit", "top_card", "hand", "events"})
"""Fields ``fill_observation`` writes itself: enums and messages (the rest are integers, or
lists of integers, the same on both sides)."""
_PLAIN_FIELDS: Final = tuple(
    (name, index) for index, name in enumerate(_ENGINE_FIELDS)
    if name in _WIRE_FIELDS and name not in _ENCODED_OTHERWISE
    and not _WIRE_FIELDS[name].is_repeated
)
"""(name, index in ``Observation``) of the scalar integer fields."""
_LIST_FIELDS: Final = tuple(
    (name, index) for index, name in enumerate(_ENGINE_FIELDS)
    if name in _WIRE_FIELDS and name not in _ENCODED_OTHERWISE and _WIRE_FIELDS[name].is_repeated
)
"""(name, index in ``Observation``) of the repeated integer fields."""


def _hand(obs: pb.Observation) -> tuple[Card, ...]:
    return tuple([card_from_pb(c) for c in obs.hand])


def _top_card(obs: pb.Observation) -> Card:
    return card_from_pb(obs.top_card)


def _phase(obs: pb.Observation) -> Phase:
    return Phase(obs.phase)


def _active_suit(obs: pb.Observation) -> int:
    return suit_from_pb(obs.active_suit, "active suit")


def _tuple_of(name: str) -> Callable[[pb.Observation], tuple[int, ...]]:
    read = attrgetter(name)
    return lambda obs: tuple(read(obs))


_DECODERS: Final[dict[str, Callable[[pb.Observation], Any]]] = {
    "hand": _hand, "top_card": _top_card, "phase": _phase, "active_suit": _active_suit,
}
"""Decoders of the fields whose wire form is not the engine's value (``events`` aside: bots
keep their history their own way)."""
OBSERVATION_DECODERS: Final[dict[str, Callable[[pb.Observation], Any]]] = {
    name: _DECODERS.get(name) or (
        _tuple_of(name) if _WIRE_FIELDS[name].is_repeated else attrgetter(name)
    )
    for name in _ENGINE_FIELDS if name in _WIRE_FIELDS and name != "events"
}
"""Each ``Observation`` field a ``pb.Observation`` holds (but the history), in field order ->
its decoder: ``observation_from_pb`` decodes them all, the SDK's lazy ``View`` each one when a
bot first reads it. ``ValueError`` for a card, suit or phase that does not exist."""


def moves_to_pb(moves: Sequence[Move]) -> list[pb.Move]:
    """Wire forms of the legal moves, in order."""
    return [move_to_pb(m) for m in moves]
