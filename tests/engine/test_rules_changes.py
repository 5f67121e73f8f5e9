"""Rules changed from the preset: one text for the replay, the report, simulate and rules show."""

from __future__ import annotations

from craits.engine import preset, rules_from_settings
from craits.engine.rules_changes import changed_fields, format_value, rules_summary


def test_a_preset_as_it_is_is_just_its_name() -> None:
    for name in ("standard", "gamerules", "spanish"):
        assert changed_fields(preset(name)) == {}
        assert rules_summary(preset(name)) == name


def test_changes_come_in_field_order_typed_as_after_set() -> None:
    rules = rules_from_settings("spanish", ["max_turns_per_hand=500", "face_cards=true",
                                            "going_out_points=-5"])
    assert changed_fields(rules) == {"going_out_points": -5, "face_cards": True,
                                     "max_turns_per_hand": 500}
    assert rules_summary(rules) == "spanish, going_out_points=-5, face_cards=true, " \
        "max_turns_per_hand=500"


def test_a_field_set_back_to_the_presets_value_is_no_change() -> None:
    rules = rules_from_settings("gamerules", ["three_cancels_eight=true", "nines_wild=false"])
    assert rules_summary(rules) == "gamerules"


def test_a_value_reads_as_it_is_typed() -> None:
    assert [format_value(v) for v in (True, False, -10, "x")] == ["true", "false", "-10", "x"]

