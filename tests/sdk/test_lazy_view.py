"""A lazily decoded ``View`` equals one built eagerly, for every decision of whole games.

Games of every preset are played on the engine. At each decision the request is encoded as the
referee encodes it and parsed as the bot receives it, and the wire view (fields decoded when
read) is compared, attribute by public attribute, with the view of the engine's own observation
of that decision and with the view of the request decoded eagerly (``observation_from_pb``, how
the SDK decoded it before views were lazy).
"""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any

import pytest

from craits.engine import PRESETS, Game, Observation, Rules, observe
from craits.protocol import add_moves, fill_observation, observation_from_pb, rules_to_pb
from craits.v1 import referee_pb2 as pb
from craits_sdk import GameInfo, Rejection, View
from craits_sdk.wire import game_from_start, view_from_request

METHODS = frozenset({"world_sampler", "sample_world", "with_rejection", "from_observation", "of"})
PUBLIC = tuple(sorted(n for n in dir(View) if not n.startswith("_") and n not in METHODS))
"""Every public attribute of a view: its fields and properties (new ones are compared too)."""


GAME = ("game_id", "seat", "players", "rules", "move_ms", "bank_ms", "next_index",
        "missing_events", "history")
"""What a ``GameInfo`` holds (each view of a seat has its own, in each way of building it)."""


def _attributes(view: View, order: tuple[str, ...] = PUBLIC) -> dict[str, Any]:
    """The view's public attributes, its game's compared by what it holds."""
    values = {name: getattr(view, name) for name in order}
    values["game"] = {name: getattr(view.game, name) for name in GAME}
    return values


def _request(obs: Observation, game_id: str, decision_id: int) -> pb.DecisionRequest:
    """The request as the referee fills it, through its bytes (what a bot parses)."""
    msg = pb.RefereeMessage()
    req = msg.decision
    req.game_id, req.decision_id, req.move_ms, req.bank_ms = game_id, decision_id, 900, 12_000
    fill_observation(req.observation, obs)
    add_moves(req, obs.legal_moves)
    return pb.RefereeMessage.FromString(msg.SerializeToString()).decision


def _game_infos(game_id: str, rules: Rules, seat: int, players: int
                ) -> tuple[GameInfo, GameInfo, GameInfo]:
    """The seat's game as the wire session, the eager wire decoding and the engine see it."""
    start = pb.GameStart(game_id=game_id, seat=seat, rules=rules_to_pb(rules),
                         players=[pb.Player(seat=s, name=f"seat {s}") for s in range(players)])
    start.time_control.move_ms = 900
    names = tuple(f"seat {s}" for s in range(players))
    return (game_from_start(start), game_from_start(start),
            GameInfo(game_id, seat, names, rules, 900))


def _compare_game(name: str, rules: Rules, players: int, seed: int) -> int:
    """Play a whole game, comparing the three views at every decision; return how many."""
    game, rng = Game.new(rules, players, seed), random.Random(seed)
    infos = [_game_infos(name, rules, seat, players) for seat in range(players)]
    decisions = 0
    while not game.is_over:
        seat = game.to_act
        lazy_info, eager_info, engine_info = infos[seat]
        obs = observe(game, seat, engine_info.next_index)
        decisions += 1
        req = _request(obs, name, decisions)
        lazy = view_from_request(req, lazy_info)
        added = eager_info.record_wire(req.observation.events)
        eager = View.of(observation_from_pb(req), eager_info, added, decision_id=decisions,
                        move_ms=req.move_ms, bank_ms=req.bank_ms, raw=req)
        engine = View.of(obs, engine_info, engine_info.record(obs.events, obs.events_from),
                         decision_id=decisions, move_ms=900, bank_ms=12_000, raw=req)
        order = PUBLIC if decisions % 2 else PUBLIC[::-1]  # no field may depend on another's
        seen = _attributes(lazy, order)
        assert seen == _attributes(eager), f"{name} decision {decisions}"
        assert seen == _attributes(engine), f"{name} decision {decisions}"
        game.apply(rng.choice(game.legal_moves()))
    return decisions


@pytest.mark.parametrize(("name", "players"), [("standard", 3), ("gamerules", 4), ("spanish", 2)])
@pytest.mark.slow
def test_a_lazy_view_equals_eager_ones_at_every_decision_of_a_game(name: str, players: int
                                                                   ) -> None:
    assert set(PRESETS) == {"standard", "gamerules", "spanish"}, "a new preset: add it here"
    assert {"hand", "legal_moves", "events", "phase", "totals", "game_id"} <= set(PUBLIC)
    assert _compare_game(name, PRESETS[name], players, seed=len(name) + players) > 100


def _a_view() -> View:
    rules = PRESETS["standard"]
    game = Game.new(rules, 3, 5)
    obs = observe(game, game.to_act)
    info = game_from_start(pb.GameStart(game_id="g", seat=obs.seat, rules=rules_to_pb(rules)))
    return view_from_request(_request(obs, "g", 1), info)


def test_copies_pickles_and_rejected_views_keep_every_field() -> None:
    view = _a_view()
    assert view.seat >= 0  # some fields read, the rest not yet
    rejection = Rejection("no", 1, view.legal_moves[0])
    kept = tuple(n for n in PUBLIC if n not in ("game", "rejection"))
    copies = (copy.copy(view), pickle.loads(pickle.dumps(view)), view.with_rejection(rejection))
    for other in copies:
        assert _attributes(other, kept) == _attributes(view, kept)
    assert view.with_rejection(rejection).rejection is rejection and view.rejection is None


def test_a_view_stays_read_only_and_names_a_field_it_lacks() -> None:
    view = _a_view()
    with pytest.raises(AttributeError, match="cannot assign to field 'hand'"):
        view.hand = ()
    with pytest.raises(AttributeError, match="no attribute 'hnad'"):
        getattr(view, "hnad")  # noqa: B009 (the misspelling is the point)


def test_a_malformed_field_fails_when_read_and_leaves_the_rest_readable() -> None:
    view = _a_view()
    assert view.raw is not None
    broken = pb.DecisionRequest()
    broken.CopyFrom(view.raw)
    broken.observation.top_card.rank = pb.RANK_UNSPECIFIED
    info = game_from_start(pb.GameStart(game_id="g", rules=rules_to_pb(PRESETS["standard"])))
    bad = view_from_request(broken, info)
    with pytest.raises(ValueError, match="does not exist"):
        _ = bad.top_card
    assert bad.hand == view.hand and bad.legal_moves == view.legal_moves
    assert "top_card=<unreadable:" in repr(bad)
