"""``craits rules show`` and ``craits rules score``."""

from __future__ import annotations

import pytest

from craits.cli.rules import field_descriptions
from craits.engine import PRESETS, Rules, preset

from .helpers import Runner

# ----------------------------------------------------------------------------- score


@pytest.mark.parametrize(
    ("preset_name", "cards", "score"),
    [
        ("standard", ["A,3,3,6,7,9,K"], 37),  # W's worked example
        ("gamerules", ["3,2,8"], 20),  # G's worked example
        ("standard", ["3", "2", "8"], 53),  # the same hand under standard
        ("standard", ["AH", "3C", "3D", "6S", "7H", "9C", "KD"], 37),  # full card names
        ("standard", ["3H", "3S", "3D"], -150),  # only threes: -50 each
        ("spanish", ["10h", "qs"], 35),  # lower case, and 10
    ],
)
def test_score_json(cli: Runner, preset_name: str, cards: list[str], score: int) -> None:
    result = cli("rules", "score", "--preset", preset_name, "--json", *cards)
    assert result.status == 0, result.err
    data = result.json()
    assert data["score"] == score
    assert data["rules"]["preset"] == preset_name
    assert set(data) >= {"score", "cards", "threes", "cancelled", "counted", "explanation"}


def test_score_names_the_cancelled_cards(cli: Runner) -> None:
    data = cli("rules", "score", "--json", "A,3,3,6,7,9,K").json()
    assert data["threes"] == ["3", "3"]
    assert data["cancelled"] == ["6", "9"]
    assert data["counted"] == ["A", "7", "K"]


def test_score_text_explains_cancellation(cli: Runner) -> None:
    result = cli("rules", "score", "--preset", "gamerules", "3", "2", "8")
    assert result.status == 0
    score_line, explanation = result.out.splitlines()
    assert score_line == "score: 20"
    assert "the three cancels 8 (50)" in explanation
    assert explanation.endswith("= 20")


def test_score_says_why_an_eight_stayed(cli: Runner) -> None:
    out = cli("rules", "score", "3", "2", "8").out
    assert "the three cancels 2 (20)" in out
    assert "eights are never cancelled" in out


def test_score_respects_set(cli: Runner) -> None:
    data = cli("rules", "score", "--set", "three_cancels_eight=true", "--json", "3,2,8").json()
    assert data["score"] == 23
    assert data["cancelled"] == ["8"]


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["rules", "score", "3", "ZZ"], "bad card 'ZZ'"),
        (["rules", "score", "1H"], "unknown rank '1'"),
        (["rules", "score", "X"], "bad card 'X'"),
        (["rules", "score", ","], "at least one card"),
        (["rules", "score", "--preset", "bogus", "3"], "unknown preset 'bogus'"),
        (["rules", "score", "--set", "nope=1", "3"], "unknown rules field(s) 'nope'"),
        (["rules", "score", "--set", "face_cards=maybe", "3"], "takes true or false"),
        (["rules", "show", "bogus"], "unknown preset 'bogus'"),
        (["rules", "show", "--set", "three_points=x"], "takes a whole number"),
        (["rules", "show", "--set", "face_cards"], "must look like field=value"),
        (["rules", "score", "AH", "ah", "AH", "AH", "AH"], "5 x AH: no hand can hold more than 2"),
        (["rules", "score", "10h,10H,10H"], "3 x 10H: no hand can hold more than 2"),
        (["rules", "score", *["3"] * 9], "9 x 3: no hand can hold more than 8"),
        (["rules", "score", "KS", *["K"] * 8], "9 x K: no hand can hold more than 8"),
    ],
)
def test_usage_errors(cli: Runner, argv: list[str], fragment: str) -> None:
    cli(*argv).assert_usage_error(fragment)


def test_as_many_copies_as_two_decks_hold_are_scored(cli: Runner) -> None:
    assert cli("rules", "score", "AH", "AH", "3H", "3H", *["3"] * 6, "--json").json()["score"] == 24


# ----------------------------------------------------------------------------- show


@pytest.mark.parametrize("name", list(PRESETS))
def test_show_json_is_the_preset(cli: Runner, name: str) -> None:
    data = cli("rules", "show", name, "--json").json()
    assert data == preset(name).to_dict()
    assert Rules.from_dict(data) == preset(name)


def test_show_json_applies_settings(cli: Runner) -> None:
    data = cli(
        "rules", "show", "gamerules", "--set", "face_cards=on", "--set", "max_turns_per_hand=500",
        "--json",
    ).json()
    assert data == preset("gamerules").replace(face_cards=True, max_turns_per_hand=500).to_dict()


def test_show_table_lists_every_field_with_a_description(cli: Runner) -> None:
    result = cli("rules", "show", "spanish")
    assert result.status == 0
    lines = result.out.splitlines()
    assert lines[0].split() == ["field", "value", "description"]
    rows = {line.split()[0]: line for line in lines[1:]}
    for name, value in preset("spanish").to_dict().items():
        assert name in rows
        assert str(value).lower() in rows[name]
        assert field_descriptions()[name] in rows[name]


def test_show_marks_changed_fields(cli: Runner) -> None:
    out = cli("rules", "show", "--set", "face_cards=true").out
    row = next(line for line in out.splitlines() if line.startswith("face_cards"))
    assert "true*" in row
    assert out.splitlines()[-1] == "* differs from the 'standard' preset"


def test_every_rules_field_has_a_description() -> None:
    docs = field_descriptions()
    assert set(docs) == set(Rules().to_dict())
    assert all(docs.values())


# ----------------------------------------------------------------------------- as a process


@pytest.mark.slow
def test_score_as_a_process(cli_process: Runner) -> None:
    result = cli_process("rules", "score", "--json", "A,3,3,6,7,9,K")
    assert result.status == 0, result.err
    assert result.json()["score"] == 37


@pytest.mark.slow
def test_error_as_a_process(cli_process: Runner) -> None:
    cli_process("rules", "show", "nosuchpreset").assert_usage_error("unknown preset")
