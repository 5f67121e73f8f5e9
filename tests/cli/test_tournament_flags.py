"""``craits tournament run --bot SPEC ...``: a tournament from flags, and flags over a file."""

import argparse
from pathlib import Path

import pytest

from craits.cli.main import build_parser
from craits.cli.tournament_flags import bot_tables, read_table, with_flags
from craits.tournament.plan.config import ConfigError

from .helpers import TINY, Runner

BUNDLED = ("greedy", "lowcard", "random")


def run_args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["tournament", "run", *argv])


def test_flags_override_the_file(tmp_path: Path) -> None:
    cup = tmp_path / "cup.toml"
    cup.write_text("seed = 5\n" + TINY + "[time]\nmove_ms = 300\n")
    args = run_args(str(cup), "--deal-sets", "3", "--move-ms", "700", "--seed", "9",
                    "--set", "face_cards=false")
    config = with_flags(read_table(cup, {}), args, BUNDLED, str(cup))
    assert (config.deal_sets, config.time.move_ms, config.seed) == (3, 700, 9)
    assert config.rules.short_game and not config.rules.face_cards  # the file's, then --set
    assert config.bot_names == ("greedy", "lowcard")


def test_bots_from_specs_are_named_after_what_they_run() -> None:
    tables = bot_tables(["greedy", "greedy", "python3 my_bot.py --fast",
                         "python:craits_bots.lowcard:LowCardBot"], BUNDLED)
    assert tables == [{"name": "greedy"}, {"name": "greedy-2", "bundled": "greedy"},
                      {"name": "my_bot", "command": "python3 my_bot.py --fast"},
                      {"name": "LowCardBot", "python": "craits_bots.lowcard:LowCardBot"}]


def test_a_preset_flag_replaces_the_files_rules(tmp_path: Path) -> None:
    cup = tmp_path / "cup.toml"
    cup.write_text(TINY)
    config = with_flags(read_table(cup, {}), run_args("--preset", "spanish"), BUNDLED, "f")
    assert config.rules.preset == "spanish" and not config.rules.short_game


def test_a_bad_flag_is_reported_as_the_key_it_sets() -> None:
    args = run_args("--bot", "greedy", "--bot", "random", "--table-size", "3")
    with pytest.raises(ConfigError, match="command line: table_size"):
        with_flags({}, args, BUNDLED, "command line")


@pytest.mark.slow
def test_a_tournament_from_flags_alone(cli: Runner, tmp_path: Path) -> None:
    done = cli("tournament", "run", "--bot", "greedy", "--bot", "lowcard", "--deal-sets", "1",
               "--set", "short_game=true", "--db", str(tmp_path / "t.sqlite"), "--json")
    assert done.status == 0, done.err
    final = done.json()
    assert final["games"] == 2 and {row["bot"] for row in final["rows"]} == {"greedy", "lowcard"}


def test_an_in_process_bot_from_the_command_line(cli: Runner, tmp_path: Path) -> None:
    done = cli("tournament", "run", "--bot", "greedy", "--bot",
               "python:craits_bots.lowcard:LowCardBot", "--deal-sets", "1",
               "--set", "short_game=true", "--db", str(tmp_path / "t.sqlite"), "--json")
    assert done.status == 0, done.err
    final = done.json()
    assert final["games"] == 2 and {row["bot"] for row in final["rows"]} == {"greedy",
                                                                            "LowCardBot"}
