"""What a newcomer types first: a bare ``craits``, misspellings, short ids, odd seeds."""

from pathlib import Path

import pytest

from craits.engine.rules import RulesError, preset
from craits.hosting.launcher import LaunchError, command_for
from craits.tournament.plan.config import ConfigError, parse_config
from craits.tournament.store.database import Store

from .helpers import TINY, Runner


def test_a_bare_craits_prints_the_help(cli: Runner) -> None:
    done = cli()
    assert done.status == 0 and "usage: craits" in done.out and "tournament" in done.out


def test_a_misspelt_bot_name_gets_a_suggestion() -> None:
    with pytest.raises(LaunchError, match="did you mean 'greedy'"):
        command_for("gredy")


def test_a_misspelt_preset_and_rules_field_get_suggestions() -> None:
    with pytest.raises(RulesError, match="did you mean 'standard'"):
        preset("standrad")
    with pytest.raises(RulesError, match="did you mean 'short_game'"):
        preset("standard").with_setting("short_gme=true")


def test_a_misspelt_tournament_key_gets_a_suggestion() -> None:
    with pytest.raises(ConfigError, match="tabel_size: unknown key \\(did you mean 'table_size'"):
        parse_config(TINY.replace("table_size", "tabel_size"))


def test_a_unique_prefix_names_a_tournament(cli: Runner, tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    with Store.open(db, mode="create") as store:
        config = parse_config(TINY)
        store.create_tournament(config, "abc123")
        store.create_tournament(config, "abd456")
    shown = cli("tournament", "show", "abc", "--db", str(db), "--csv")
    assert shown.status == 0 and shown.out.startswith("game_index,")
    cli("tournament", "show", "ab", "--db", str(db)).assert_usage_error("ambiguous", "abc123")
    cli("tournament", "show", "abx", "--db", str(db)).assert_usage_error("no tournament 'abx'")


def test_the_list_has_a_header_and_names_its_database(cli: Runner, tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    with Store.open(db, mode="create") as store:
        store.create_tournament(parse_config(TINY), "abc123")
    listed = cli("tournament", "list", "--db", str(db))
    assert listed.status == 0
    assert next(line.split()[:2] for line in listed.out.splitlines() if line.strip()) == [
        "id", "status"]
    assert str(db) in listed.out
