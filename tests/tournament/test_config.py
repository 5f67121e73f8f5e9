"""Tournament configuration: TOML loading, defaults, and errors that name the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from craits.engine import preset
from craits.referee.tokens import digest
from craits.tournament.plan.config import (
    ConfigError,
    SprtSettings,
    TournamentConfig,
    config_from_dict,
    default_config,
    load_config,
    parse_config,
    scheduled_games,
)

THREE_BOTS = """
[[bots]]
name = "a"
[[bots]]
name = "b"
[[bots]]
name = "c"
"""

FULL = """
name = "demo"
seed = 42
mode = "gauntlet"
gauntlet = "mine"
table_size = 3
deal_sets = 4
seatings = "all"
concurrency = 8
max_tables_per_bot = 2

[rules]
preset = "spanish"
face_cards = true

[time]
move_ms = 500
bank_ms = 20000

[failure]
max_retries = 1
max_strikes = 5
grace_ms = 2000

[[bots]]
name = "random"

[[bots]]
name = "greedy2"
bundled = "greedy"

[[bots]]
name = "mine"
command = "python my_bot.py --fast"

[[bots]]
name = "remote1"
remote = true
token = "s3cret-s3cret-s3cret-s3cret"
"""


def test_full_example_loads_every_key() -> None:
    c = parse_config(FULL, bundled_names={"random", "greedy"})
    assert (c.name, c.seed, c.mode, c.gauntlet) == ("demo", 42, "gauntlet", "mine")
    assert (c.table_size, c.deal_sets, c.seatings) == (3, 4, "all")
    assert (c.concurrency, c.max_tables_per_bot) == (8, 2)
    assert c.rules == preset("spanish").replace(face_cards=True)
    assert (c.time.move_ms, c.time.bank_ms) == (500, 20000)
    assert (c.failure.max_retries, c.failure.max_strikes, c.failure.grace_ms) == (1, 5, 2000)
    kinds = [(b.name, b.kind, b.bundled, b.command, b.token) for b in c.bots]
    assert kinds == [
        ("random", "bundled", "random", "", ""),
        ("greedy2", "bundled", "greedy", "", ""),
        ("mine", "command", "", "python my_bot.py --fast", ""),
        ("remote1", "remote", "", "", digest("s3cret-s3cret-s3cret-s3cret")),
    ]


def test_to_dict_round_trips() -> None:
    c = parse_config(FULL)
    assert config_from_dict(c.to_dict()) == c
    d = default_config(["x", "y", "z", "w"])
    assert config_from_dict(d.to_dict()) == d


def test_default_config_needs_no_file() -> None:
    c = default_config(["random", "greedy"], bundled_names={"random", "greedy"})
    assert c.bot_names == ("random", "greedy")
    assert c.table_size == 2
    assert c.mode == "round-robin" and c.seatings == "rotations"
    assert default_config(["a", "b", "c", "d", "e"]).table_size == 3
    assert c == TournamentConfig(bots=c.bots, table_size=2)


def test_load_config_reads_a_file(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text('name = "file"\n' + THREE_BOTS)
    assert load_config(path).name == "file"
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.toml")
    path.write_text("x = 1\n" + THREE_BOTS)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == f"{path}: x: unknown key"
    path.write_bytes(b"name = '\xff'")
    with pytest.raises(ConfigError, match="not UTF-8 text"):
        load_config(path)


def test_command_as_array_is_shell_quoted() -> None:
    c = parse_config('table_size = 2\nbots = [{name = "a", command = ["python", "my bot.py"]},'
                     ' {name = "b"}]')
    assert c.bots[0].command == "python 'my bot.py'"


def test_match_mode_takes_sprt_settings() -> None:
    c = parse_config('mode = "match"\ntable_size = 2\ndeal_sets = 500\n[sprt]\nelo1 = 30\n'
                     '[[bots]]\nname = "a"\n[[bots]]\nname = "b"\n')
    assert c.sprt is not None and (c.sprt.elo0, c.sprt.elo1) == (0.0, 30.0)
    plain = parse_config('mode = "match"\ntable_size = 2\n[[bots]]\nname = "a"\n'
                         '[[bots]]\nname = "b"\n')
    assert plain.sprt == SprtSettings()
    assert config_from_dict(plain.to_dict()) == plain


def test_a_gauntlet_has_a_sequential_test_only_when_it_asks_for_one() -> None:
    gauntlet = 'mode = "gauntlet"\ngauntlet = "a"\ntable_size = 2\n' + THREE_BOTS
    assert parse_config(gauntlet).sprt is None
    tested = parse_config(gauntlet + "[sprt]\nelo1 = 40\n")
    assert tested.sprt == SprtSettings(elo1=40.0)
    assert config_from_dict(tested.to_dict()) == tested


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x = 1\n" + THREE_BOTS, "x: unknown key"),
        ('[[bots]]\nname = "a"\n[[bots]]\nname = "b"\n[[bots]]\nname = "c"\ncomand = "x"\n',
         "bots[2].comand: unknown key"),
        ("table_size = 11\n" + THREE_BOTS, "table_size: must be a whole number from 2 to 10"),
        ("table_size = true\n" + THREE_BOTS, "table_size: must be a whole number"),
        ("table_size = 4\n" + THREE_BOTS, "table_size: 4 seats need at least 4 bots"),
        ('seed = "one"\n' + THREE_BOTS, "seed: must be a whole number"),
        ("deal_sets = 0\n" + THREE_BOTS, "deal_sets: must be a whole number from 1"),
        ('seatings = "some"\n' + THREE_BOTS, 'seatings: must be one of "rotations", "all"'),
        ('mode = "swiss"\n' + THREE_BOTS, "mode: must be one of"),
        ('mode = "gauntlet"\n' + THREE_BOTS, "gauntlet: mode = \"gauntlet\" needs"),
        ('mode = "gauntlet"\ngauntlet = "zz"\n' + THREE_BOTS, "gauntlet: 'zz' is not one of"),
        ('gauntlet = "a"\n' + THREE_BOTS, 'gauntlet: only with mode = "gauntlet"'),
        ('mode = "match"\n' + THREE_BOTS, 'mode: "match" is two bots'),
        ("[sprt]\nelo1 = 5\n" + THREE_BOTS, 'sprt: only with mode = "match" or "gauntlet"'),
        ('name = ""\n' + THREE_BOTS, "name: must be a non-empty string"),
        ("[time]\nmove_ms = 0\n" + THREE_BOTS, "time.move_ms: must be a whole number from 1"),
        ("[time]\nmoves = 5\n" + THREE_BOTS, "time.moves: unknown key"),
        ("[failure]\nmax_strikes = -1\n" + THREE_BOTS, "failure.max_strikes: must be"),
        ("[rules]\nfoo = 1\n" + THREE_BOTS, "rules.foo: unknown key"),
        ("[rules]\nnines_wild = 1\n" + THREE_BOTS, "rules.nines_wild: rules field 'nines_wild'"),
        ('[rules]\npreset = "x"\n' + THREE_BOTS, "rules.preset: unknown preset 'x'"),
        ("rules = 3\n" + THREE_BOTS, "rules: must be a table"),
        ("", "bots: at least two bots are needed"),
        ('[[bots]]\nname = "a"\n', "bots: at least two bots are needed"),
        ("bots = 3", "bots: must be an array of tables"),
        ('[[bots]]\nname = "a"\n[[bots]]\nname = "a"\n', "bots[1].name: duplicate bot name 'a'"),
        ('[[bots]]\nname = "a b"\n[[bots]]\nname = "c"\n', "bots[0].name: 'a b' is not a plain"),
        ('[[bots]]\nremote = true\n[[bots]]\nname = "c"\n', "bots[0].name: missing"),
        ('[[bots]]\nname = "a"\ncommand = ""\n[[bots]]\nname = "c"\n',
         "bots[0].command: must name a program"),
        ('[[bots]]\nname = "a"\ncommand = "x"\nremote = true\n[[bots]]\nname = "c"\n',
         "bots[0].remote: a bot is one of bundled, command, python or remote"),
        ('[[bots]]\nname = "a"\ntoken = "t"\n[[bots]]\nname = "c"\n',
         "bots[0].token: only a remote bot has a token"),
        ('mode = "match"\ntable_size = 2\n[sprt]\nelo0 = 5\nelo1 = 5\n'
         '[[bots]]\nname = "a"\n[[bots]]\nname = "b"\n', "sprt.elo1: must be greater"),
        ('seatings = "all"\ntable_size = 10\ndeal_sets = 1\nbots = ['
         + ", ".join(f'{{name = "b{i}"}}' for i in range(10)) + "]",
         "deal_sets: the schedule would have 3628800 games"),
        ("x = [", "<config>: not valid TOML"),
    ],
)
def test_errors_name_the_key(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(text)
    assert str(info.value).startswith(message), str(info.value)


def test_bundled_names_are_checked_when_known() -> None:
    with pytest.raises(ConfigError, match=r"bots\[1\].name: no bundled bot 'b'"):
        parse_config('[[bots]]\nname = "a"\n[[bots]]\nname = "b"\n', bundled_names={"a"})
    with pytest.raises(ConfigError, match=r"bots\[1\].bundled: no bundled bot 'zz'"):
        parse_config('table_size = 2\n[[bots]]\nname = "a"\n[[bots]]\nname = "b"\nbundled = "zz"',
                     bundled_names={"a"})


def test_scheduled_games_counts_meetings_seatings_and_deal_sets() -> None:
    c = parse_config("deal_sets = 3\n" + THREE_BOTS)
    assert scheduled_games(c) == 1 * 3 * 3


def test_the_documented_example_is_valid() -> None:
    doc = (Path(__file__).parents[2] / "docs" / "tournaments.md").read_text()
    example = doc.split("### Example\n\n```toml\n")[1].split("```")[0]
    config = parse_config(example, bundled_names={"random", "greedy"})
    assert scheduled_games(config) == 48
