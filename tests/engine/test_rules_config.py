"""The rules configuration: presets match docs/rules.md, loading is strict, text settings parse."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from craits.engine import PRESETS, Rules, RulesError, preset, rules_from_settings
from craits.engine.rules import PRESET_NAMES

# The presets table of docs/rules.md (Rules configuration and presets), field by field.
PRESET_TABLE = {
    "standard": dict(nines_wild=False, going_out_points=-10, three_points=3,
                     three_cancels_eight=False, face_cards=False),
    "gamerules": dict(nines_wild=False, going_out_points=0, three_points=0,
                      three_cancels_eight=True, face_cards=False),
    "spanish": dict(nines_wild=True, going_out_points=-10, three_points=3,
                    three_cancels_eight=False, face_cards=False),
}

VARIANTS_OFF = dict(
    short_game=False, remove_kings_queens=False, dealer_follows_direction=False,
    draw_when_able=False, idiot_card=False, announce_on_one_card_deal=False,
    count_out_continues=False,
)


def test_preset_names() -> None:
    assert set(PRESETS) == set(PRESET_TABLE)
    assert Rules() == preset("standard")  # the default is the standard preset


@pytest.mark.parametrize("name", sorted(PRESET_TABLE))
def test_preset_matches_rulings(name: str) -> None:
    r = preset(name)
    assert r.preset == name
    for key, value in {**PRESET_TABLE[name], **VARIANTS_OFF}.items():
        assert getattr(r, key) == value, key
    assert r.max_turns_per_hand >= 1000  # "default generous"


def test_unknown_preset() -> None:
    with pytest.raises(RulesError, match="standard"):
        preset("house")


@pytest.mark.parametrize(
    "data",
    [{"nines_wild": True, "jokers": True}, {"face_card": True}, {"preset": "standard", "x": 1}],
)
def test_unknown_keys_rejected(data: dict[str, Any]) -> None:
    with pytest.raises(RulesError, match="unknown rules field"):
        Rules.from_dict(data)


@pytest.mark.parametrize(
    ("key", "value"),
    [("nines_wild", 1), ("nines_wild", "yes"), ("going_out_points", True),
     ("going_out_points", -10.0), ("max_turns_per_hand", "2000"), ("preset", 3),
     ("face_cards", None)],
)
def test_wrong_types_rejected(key: str, value: object) -> None:
    with pytest.raises(RulesError, match=key):
        Rules().replace(**{key: value})
    with pytest.raises(RulesError, match=key):
        Rules.from_dict({key: value})


def test_turn_cap_minimum() -> None:
    with pytest.raises(RulesError, match="max_turns_per_hand"):
        Rules(max_turns_per_hand=9)
    assert Rules(max_turns_per_hand=10).max_turns_per_hand == 10


@pytest.mark.parametrize(("key", "low", "high"), [
    ("going_out_points", -10_000, 10_000),
    ("three_points", -10_000, 10_000),
    ("max_turns_per_hand", 10, 1_000_000),
])
def test_whole_number_fields_have_bounds_the_wire_can_carry(key: str, low: int, high: int) -> None:
    """Values the 32-bit wire fields could not carry are refused when the rules are made, with
    the key and the range in the message, not later inside a game."""
    assert Rules.from_dict({key: low}).to_dict()[key] == low
    assert Rules.from_dict({key: high}).to_dict()[key] == high
    for bad in (low - 1, high + 1, 5_000_000_000):
        with pytest.raises(RulesError, match=f"'{key}' must be {low} to {high}, got {bad}"):
            Rules.from_dict({key: bad})


def test_rules_are_immutable() -> None:
    r = Rules()
    with pytest.raises(AttributeError):
        r.nines_wild = True  # type: ignore[misc]


def test_json_round_trip_every_field() -> None:
    r = preset("gamerules").replace(face_cards=True, short_game=True, max_turns_per_hand=77)
    text = r.to_json()
    assert Rules.from_json(text) == r
    assert list(json.loads(text)) == list(Rules().to_dict())  # declaration order, every field


def test_partial_dict_takes_the_rest_from_its_preset() -> None:
    r = Rules.from_dict({"preset": "spanish", "idiot_card": True})
    assert r == preset("spanish").replace(idiot_card=True)
    assert Rules.from_dict({}) == Rules()


@pytest.mark.parametrize("text", ["{", "[1, 2]", '"standard"'])
def test_bad_json(text: str) -> None:
    with pytest.raises(RulesError):
        Rules.from_json(text)


def test_text_settings() -> None:
    r = rules_from_settings(
        "gamerules", ["face-cards=on", "going_out_points=-5", "short_game=no",
                      "max_turns_per_hand=50"]
    )
    assert r.face_cards and r.going_out_points == -5 and not r.short_game
    assert r.max_turns_per_hand == 50 and r.three_cancels_eight


@pytest.mark.parametrize(
    ("setting", "needle"),
    [("face_cards", "field=value"), ("face_cards=maybe", "true or false"),
     ("going_out_points=ten", "whole number"), ("colour=red", "unknown rules field"),
     ("max_turns_per_hand=3", "must be 10 to 1000000"), ("preset=gamerules", "preset")],
)
def test_bad_text_settings(setting: str, needle: str) -> None:
    with pytest.raises(RulesError, match=needle):
        rules_from_settings("standard", [setting])


def test_deal_sizes() -> None:
    assert Rules().hands_in_game() == (8, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7, 8)
    assert Rules(short_game=True).hands_in_game() == (8, 7, 6, 5, 4, 3, 2, 1)


@pytest.mark.parametrize("make", [
    lambda: Rules(preset="custom"),
    lambda: Rules().replace(preset="custom"),
    lambda: Rules.from_dict({"preset": "nope"}),
])
def test_an_unknown_preset_name_is_refused_however_the_rules_are_made(
    make: Callable[[], Rules],
) -> None:
    """A record labelled with an unknown preset could never be loaded again."""
    with pytest.raises(RulesError, match=r"unknown preset .*: choose one of standard, gamerules"):
        make()
    assert tuple(PRESETS) == PRESET_NAMES
