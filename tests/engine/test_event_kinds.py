"""Event kinds are an ``EventKind`` (a ``StrEnum``) and still the strings they always were.

Records, JSON lines and wire messages store a kind as its string: the enum must not change one
byte of them, nor the ``repr`` that the pinned digests of test_exact_games.py are taken over.
"""

from __future__ import annotations

import json
import random

from craits.engine import Event, EventKind, Game, preset


def test_the_engine_logs_every_kind_as_an_event_kind_equal_to_its_old_string() -> None:
    seen: set[str] = set()
    for seed in range(6):
        game, rng = Game.new(preset("spanish"), 2 + seed, seed), random.Random(seed)
        while not game.is_over:
            game.apply(rng.choice(game.legal_moves()))
        for e in game.events:
            assert type(e.kind) is EventKind
            seen.add(e.kind)
    assert {"play", "draw", "hand_end", "final"} <= seen
    assert seen <= {k.value for k in EventKind}


def test_a_kind_serialises_and_prints_as_its_string() -> None:
    e = Event(EventKind.CHOOSE_SUIT, 0, aux=3)
    assert json.dumps(e.to_dict()) == '{"kind": "choose_suit", "seat": 0, "suit": "S"}'
    assert repr(e) == repr(Event("choose_suit", 0, aux=3))
    assert f"{e.kind}" == str(e.kind) == "choose_suit"
    assert Event.from_dict(e.to_dict()).kind is EventKind.CHOOSE_SUIT
