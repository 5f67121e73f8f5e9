"""The fast request builders (cached encoded entries merged in one call) against plain protobuf.

``fill_observation``, ``add_update_events`` and ``add_moves`` build the hand, the events and the
legal moves from cached encodings; every request of whole games (and hand-end updates) must
equal one built the obvious way, with message constructors, field by field, including after the
event cache is cleared mid-game.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from craits import protocol
from craits.engine import CARDS, Event, Game, Move, Observation, Rules, observe, preset
from craits.protocol import add_moves, fill_observation
from craits.v1 import referee_pb2 as pb


def _card(card: int) -> pb.Card:
    return pb.Card(rank=pb.Rank.ValueType(CARDS[card].rank),
                   suit=pb.Suit.ValueType(CARDS[card].suit + 1))


def _event(event: Event, index: int) -> pb.Event:
    msg = pb.Event(kind=event.kind, cards=[_card(c) for c in event.cards], value=event.value,
                   aux=event.aux, detail=event.detail, private=event.private, index=index)
    if event.seat >= 0:
        msg.seat = event.seat
    return msg


def _move(move: Move) -> pb.Move:
    return pb.Move(kind=pb.MoveKind.Value(f"MOVE_KIND_{move.kind.name}"),
                   card=_card(move.card) if move.card >= 0 else None,
                   suit=pb.Suit.ValueType(move.suit + 1), one_card=move.one_card, text=str(move))


def _reference(obs: Observation) -> pb.DecisionRequest:
    """The request's observation and moves, built with constructors only."""
    return pb.DecisionRequest(
        observation=pb.Observation(
            seat=obs.seat, players=obs.players, hand_number=obs.hand_number,
            hands_in_game=obs.hands_in_game, deal_size=obs.deal_size, dealer=obs.dealer,
            direction=obs.direction, phase=pb.Phase.Value(f"PHASE_{obs.phase.name}"),
            to_act=obs.to_act, hand=[_card(c) for c in obs.hand], hand_sizes=obs.hand_sizes,
            stock_size=obs.stock_size, discard_size=obs.discard_size,
            top_card=_card(obs.top_card), active_suit=pb.Suit.ValueType(obs.active_suit + 1),
            count=obs.count, jack_penalty=obs.jack_penalty, king_left=obs.king_left,
            forfeits=obs.forfeits, totals=obs.totals, pressure_counts=obs.pressure_counts,
            events=[_event(e, i) for i, e in enumerate(obs.events, obs.events_from)],
        ),
        legal_moves=[_move(m) for m in obs.legal_moves],
    )


def _requests_equal_reference(players: int, seed: int, rules: Rules) -> int:
    game = Game.new(rules, players, seed)
    sent = [0] * players
    checked = 0
    while not game.is_over:
        seat = game.to_act
        obs = observe(game, seat, sent[seat])
        sent[seat] = len(game.events)
        built = pb.DecisionRequest()
        fill_observation(built.observation, obs)
        add_moves(built, obs.legal_moves)
        assert built == _reference(obs), f"decision {checked} differs"
        assert built.SerializeToString() == _reference(obs).SerializeToString()
        legal = game.legal_moves()
        game.apply(legal[(seed + checked) % len(legal)])
        checked += 1
    return checked


STANDARD = preset("standard")


@pytest.mark.parametrize(("players", "seed", "rules"), [
    (2, 1, STANDARD), (3, 2, STANDARD), (4, 3, STANDARD), (5, 4, STANDARD), (6, 6, STANDARD),
    (2, 5, replace(STANDARD, face_cards=True)), (3, 8, preset("spanish")),
])
def test_every_request_of_a_game_equals_the_plain_construction(
    players: int, seed: int, rules: Rules
) -> None:
    assert _requests_equal_reference(players, seed, rules) > 100


def test_a_full_event_cache_is_cleared_and_requests_stay_exact(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(protocol, "_EVENT_BODIES_MAX", 7)
    protocol._EVENT_BODY.clear()
    assert _requests_equal_reference(3, 11, STANDARD) > 100
    assert len(protocol._EVENT_BODY) <= 7


def test_a_redacted_event_never_shares_an_encoding_with_its_original() -> None:
    game = Game.new(preset("standard"), 2, 3)
    deal = next(e for e in game.events if e.private and e.cards)
    hidden = deal.seen_by(1 - deal.seat)
    assert hidden.cards == () and deal.cards
    key = protocol._OBSERVATION_EVENTS
    seen_by_owner = pb.Observation.FromString(protocol._event_entry(key, 0, deal))
    seen_by_other = pb.Observation.FromString(protocol._event_entry(key, 0, hidden))
    assert len(seen_by_owner.events[0].cards) == len(deal.cards)
    assert len(seen_by_other.events[0].cards) == 0


@pytest.mark.parametrize("n", [1, 2, 127, 128, 129, 300, 16_383, 16_384, 2**31 - 1, 2**32 - 1])
def test_varint_is_protobufs_own(n: int) -> None:
    assert protocol._varint(n) == pb.Event(index=n).SerializeToString()[1:]


def test_an_event_longer_than_one_length_byte_is_framed_like_protobuf_frames_it() -> None:
    long = Event("hand_score", 1, CARDS[:40], 77, 2, "x" * 200, False)
    for index in (0, 5, 130, 20_000):
        expected = pb.Observation(events=[_event(long, index)]).SerializeToString()
        assert protocol._event_entry(protocol._OBSERVATION_EVENTS, index, long) == expected


def test_update_events_equal_the_plain_construction() -> None:
    game = Game.new(preset("standard"), 3, 4)
    while len(game.hand_scores) < 2:
        game.apply(game.legal_moves()[0])
    for seat in range(3):
        seen = [e.seen_by(seat) for e in game.events[10:]]
        built = pb.GameUpdate(game_id="g")
        protocol.add_update_events(built, seen, 10)
        wire = [_event(e, i) for i, e in enumerate(seen, 10)]
        reference = pb.GameUpdate(game_id="g", events=wire)
        assert built == reference
        assert built.SerializeToString() == reference.SerializeToString()


def test_scores_past_32_bits_cross_the_wire_exactly() -> None:
    """Shuffle pressure doubles up to 5 * 2**20 per time (docs/rules.md, ruling 28): totals and
    event values pass 2**31 in long games, which the old sint32 fields could not carry."""
    game = Game.new(preset("standard"), 2, 5)
    big = 5 * 2**20 * 1_000 + 7
    game.totals = [big, -big]
    game.events.append(Event("pressure", 0, (), 5 * 2**20, 2_000))
    game.events.append(Event("hand_score", 1, (), -big, -big))
    obs = observe(game, 0)
    wire = pb.DecisionRequest(observation=protocol.observation_to_pb(obs))
    received = pb.DecisionRequest.FromString(wire.SerializeToString())
    assert protocol.observation_from_pb(received).totals == (big, -big)
    events = received.observation.events
    assert [(e.value, e.aux) for e in events[-2:]] == [(5 * 2**20, 2_000), (-big, -big)]
    end = pb.GameEnd.FromString(pb.GameEnd(totals=[big, -big]).SerializeToString())
    assert list(end.totals) == [big, -big]


def test_every_card_crosses_the_wire_and_back() -> None:
    assert [protocol.card_from_pb(protocol.card_to_pb(c)) for c in CARDS] == list(CARDS)
    assert len({protocol.card_to_pb(c).SerializeToString() for c in CARDS}) == len(CARDS)
