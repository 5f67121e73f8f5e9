"""No byte of another seat's hand reaches a bot: checked on what the bots received at the wire.

Four raw-protocol bots capture every packet they receive in a full game. The game is replayed in
process to know every hand at every decision. Then every card anywhere in every message is
located by its field path, and each path must be one a seat may legitimately see: its own hand,
its own legal moves, the top card, public events, and its own private events.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from google.protobuf.message import Message

from craits.engine import CARDS, Game, preset
from craits.hosting.match import run_match
from craits.referee import bridge
from craits.referee.game import GameSpec, PlayedGame
from craits.v1 import referee_pb2 as pb

from .helpers import rawbot
from .wire import read_capture

pytestmark = pytest.mark.slow  # whole games of real bot processes

PUBLIC_EVENT_KINDS = {"play", "upturn", "dealer_draw", "hand_score"}


def _cards(msg: Message, path: str = "") -> Iterator[tuple[str, Message, list[Message]]]:
    """Every Card inside ``msg``: (field path, the Card, the chain of enclosing messages)."""
    for field, value in msg.ListFields():
        values = value if field.is_repeated else [value]
        if field.message_type is None:
            continue
        for item in values:
            sub = f"{path}.{field.name}" if path else field.name
            if field.message_type.full_name == "craits.v1.Card":
                yield sub, item, [msg]
            else:
                for p, card, chain in _cards(item, sub):
                    yield p, card, [msg, *chain]


def _text(card: Message) -> str:
    assert isinstance(card, pb.Card)
    return str(CARDS[(card.rank - 1) * 4 + card.suit - 1])


Snapshots = dict[int, tuple[list[list[str]], str]]


def _snapshots(result: PlayedGame, spec: GameSpec, players: int) -> Snapshots:
    """decision_id -> (every seat's hand, top card) just before that decision."""
    game = Game.new(spec.rules, players, spec.seed)
    snaps = {}
    for record in result.moves:
        hands = [sorted(str(c) for c in h) for h in game.hands]
        snaps[record.decision_id] = (hands, str(game.top_card))
        game.apply(record.move)
    return snaps


def _check_event_cards(seat: int, event: pb.Event) -> None:
    own_private = event.private and event.HasField("seat") and event.seat == seat
    assert event.kind in PUBLIC_EVENT_KINDS or own_private, (
        f"seat {seat} received cards in a {event.kind!r} event of seat {event.seat}"
    )


def _check_message(seat: int, msg: pb.RefereeMessage, snaps: Snapshots) -> int:
    case = msg.WhichOneof("payload")
    assert case is not None, f"a message without a payload: {msg}"
    body = getattr(msg, case)
    checked = 0
    hands = top = None
    if case == "decision":
        hands, top = snaps[body.decision_id]
        assert sorted(_text(c) for c in body.observation.hand) == hands[seat]
    for path, card, chain in _cards(body):
        checked += 1
        if path.endswith("events.cards"):
            event = chain[-1]
            assert isinstance(event, pb.Event), path
            _check_event_cards(seat, event)
        elif path == "observation.hand":
            pass  # compared above with the engine's hand of this seat
        elif path == "legal_moves.card":
            assert hands is not None and _text(card) in hands[seat]
        elif path == "observation.top_card":
            assert _text(card) == top
        else:
            raise AssertionError(f"card at unexpected field {case}.{path}")
    observation = getattr(body, "observation", None)
    events = getattr(body, "events", None) or getattr(observation, "events", [])
    for event in events:
        if event.private and event.seat != seat:
            assert len(event.cards) == 0 and event.value > 0
    return checked


def test_no_bot_ever_receives_another_seats_cards(tmp_path: Path) -> None:
    players = 4
    spec = GameSpec("hidden", preset("standard").replace(face_cards=True), seed=2024)
    captures = [tmp_path / f"seat{i}.b64" for i in range(players)]

    async def main() -> PlayedGame:
        return await run_match([rawbot("good", c) for c in captures], spec, tmp_path)

    result = bridge.run(main)
    snaps = _snapshots(result, spec, players)
    decisions_seen = 0
    for seat, capture in enumerate(captures):
        checked = 0
        for packet in read_capture(capture):
            for msg in packet.messages:
                checked += _check_message(seat, msg, snaps)
                decisions_seen += msg.WhichOneof("payload") == "decision"
        assert checked > 100  # the check really looked at cards
    assert decisions_seen == len(result.moves)
