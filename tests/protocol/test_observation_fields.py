"""One observation, one list of fields: the engine's, the wire's and a bot's view agree.

``craits.engine.Observation`` is where an observation's fields are listed. The protocol derives
its conversions from that list and the protobuf descriptor, and the SDK's lazy ``View`` its
slots, so a field added to the engine and the ``.proto`` reaches a bot with no other code,
unless its wire form differs (then the protocol needs a decoder, and these tests say so). The
differences are few and written down, each with its reason: ``OFF_THE_WIRE_OBSERVATION`` (what
the wire's message does not hold) and ``NOT_OBSERVED`` (what a view is given rather than reads).
"""

from __future__ import annotations

import random

import pytest

from craits import protocol
from craits.engine import Game, Observation, observe, preset
from craits.v1 import referee_pb2 as pb
from craits_sdk import View
from craits_sdk.game import GameInfo
from craits_sdk.view import NOT_OBSERVED, OBSERVED
from craits_sdk.wire import view_from_request

WIRE_FIELDS = [f.name for f in pb.Observation.DESCRIPTOR.fields]


def test_the_wire_holds_every_engine_field_but_the_documented_ones() -> None:
    engine = list(Observation._fields)
    off = protocol.OFF_THE_WIRE_OBSERVATION
    assert set(off) <= set(engine)
    assert not set(off) & set(WIRE_FIELDS)
    assert [name for name in engine if name not in off] == WIRE_FIELDS  # same names, same order


def test_a_view_reads_every_engine_field_but_the_documented_ones() -> None:
    engine = list(Observation._fields)
    assert set(NOT_OBSERVED) <= set(engine)
    assert [name for name in engine if name not in NOT_OBSERVED] == list(OBSERVED)
    assert set(OBSERVED) <= set(View.__slots__)
    declared = View.__annotations__  # what a bot's type checker sees
    assert [name for name in OBSERVED if name not in declared] == []
    given = {"legal_moves": "legal_moves", "events": "events", "events_from": "history_start"}
    assert set(given) == set(NOT_OBSERVED)  # what a view offers in their place
    assert all(hasattr(View, name) for name in given.values())


def test_the_protocol_decodes_every_field_the_wire_holds_but_the_history() -> None:
    assert list(protocol.OBSERVATION_DECODERS) == [n for n in WIRE_FIELDS if n != "events"]
    assert set(OBSERVED) <= set(protocol.OBSERVATION_DECODERS)


def test_a_field_on_one_side_only_stops_the_protocol_loading(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(protocol, "_ENGINE_FIELDS", (*Observation._fields, "trump_suit"))
    with pytest.raises(RuntimeError, match="trump_suit"):
        protocol._check_observation_fields()
    monkeypatch.setattr(protocol, "_ENGINE_FIELDS", Observation._fields[1:])
    with pytest.raises(RuntimeError, match="'seat'"):
        protocol._check_observation_fields()


def observations(seed: int, players: int) -> list[Observation]:
    """Each seat's observation at the first 100 decisions of a random game, with the last
    events."""
    game, rng = Game.new(preset("standard"), players, seed), random.Random(seed)
    seen: list[Observation] = []
    while not game.is_over and len(seen) < 100 * players:
        for seat in range(players):
            seen.append(observe(game, seat, max(0, len(game.events) - 4)))
        game.apply(rng.choice(game.legal_moves()))
    return seen


def request(obs: Observation) -> pb.DecisionRequest:
    req = pb.DecisionRequest(game_id="g", decision_id=1)
    protocol.fill_observation(req.observation, obs)
    protocol.add_moves(req, obs.legal_moves)
    return req


@pytest.mark.parametrize(("seed", "players"), [(3, 2), (8, 4), (21, 7)])
def test_every_field_crosses_the_wire_and_reaches_a_view_unchanged(
    seed: int, players: int,
) -> None:
    rules = preset("standard")
    for obs in observations(seed, players):
        req = request(obs)
        assert protocol.observation_from_pb(req, obs.events, obs.events_from) == obs
        names = tuple(f"seat {s}" for s in range(players))
        wire_view = view_from_request(req, GameInfo("g", obs.seat, names, rules))
        local_view = View.from_observation(obs, rules)
        for name in OBSERVED:
            assert getattr(wire_view, name) == getattr(obs, name), name
            assert getattr(local_view, name) == getattr(obs, name), name
        assert wire_view.legal_moves == local_view.legal_moves == obs.legal_moves
        assert list(obs.to_dict()) == list(Observation._fields)


def test_one_cache_of_listed_moves_serves_both_sides() -> None:
    obs = next(o for o in observations(5, 3) if o.legal_moves)
    req = request(obs)
    protocol._LISTED_MOVES.clear()
    rules = preset("standard")
    view = view_from_request(req, GameInfo("g", obs.seat, ("a", "b", "c"), rules))
    assert len(protocol._LISTED_MOVES) == len(set(view.legal_moves))
    assert protocol.observation_from_pb(req).legal_moves == view.legal_moves
    assert len(protocol._LISTED_MOVES) == len(set(view.legal_moves))  # found, not decoded again
