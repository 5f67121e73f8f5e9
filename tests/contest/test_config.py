"""``contest.toml``: the file ``init`` writes is the defaults, and mistakes name their key."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from craits.contest.config import ContestConfig, load_contest_config, parse_contest_config
from craits.contest.template import contest_toml
from craits.tournament.plan.tomlreader import ConfigError


def test_the_template_is_exactly_the_defaults() -> None:
    assert parse_contest_config(contest_toml('Spring "cup" ü')) == ContestConfig(
        name='Spring "cup" ü')


def test_the_phases_in_the_template_are_dates_once_uncommented() -> None:
    text = contest_toml("x").replace("# open = ", "open = ").replace("# freeze = ", "freeze = ")
    phases = parse_contest_config(text).phases
    assert phases.open == dt.datetime(2030, 5, 1, 12, tzinfo=dt.UTC)
    assert phases.at(dt.datetime(2030, 5, 2, tzinfo=dt.UTC)) == "open"
    assert phases.at(dt.datetime(2030, 4, 2, tzinfo=dt.UTC)) == "before"
    assert phases.at(dt.datetime(2030, 7, 2, tzinfo=dt.UTC)) == "frozen"


@pytest.mark.parametrize(("text", "message"), [
    ("[tables]\nmax_seats = 11\n", "tables.max_seats: must be a whole number from 2 to 10"),
    ("[tables]\nmin_seats = 4\nmax_seats = 3\n", "tables.max_seats: must be at least min_seats"),
    ("[uploads]\nper_windw = 3\n", "uploads.per_windw: unknown key (did you mean"),
    ('join = "anyone"\n', 'join: must be one of "organiser", "open"'),
    ("[rules]\npreset = \"nope\"\n", "rules: unknown preset 'nope'"),
    ("[phases]\nopen = 2030-05-01T12:00:00\n", "phases.open: needs a time zone"),
    ("[phases]\nopen = 2030-05-01T12:00:00Z\nfreeze = 2030-04-01T12:00:00Z\n",
     "phases.freeze: must not come before phases.open"),
    ("[versions]\nplaying = 0\n", "versions.playing: must be a whole number from 1 to 100"),
    ("[web]\nlive_delay_s = -1\n", "web.live_delay_s: must be a number from 0.0 to 86400.0"),
    ('name = "two\\nlines"\n', "name: must be one line"),
    ("[ladder]\nrate_least = 1\n", "ladder.rate_least: must be a number from 0.0 to 0.95"),
    ("[ladder]\nrate_most = 1\n", "ladder.rate_most: must be a number from 1.05 to 100.0"),
    ("[ladder]\ntop_weight = -1\n", "ladder.top_weight: must be a number from 0.0 to 100.0"),
    ("[ladder]\ntop_after_tau = 1\n", "ladder.top_after_tau: must be a number from 0.0 to 0.99"),
])
def test_mistakes_name_their_key(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=None) as caught:
        parse_contest_config(text)
    assert message in str(caught.value)


def test_the_matchmakers_knobs_are_read() -> None:
    ladder = parse_contest_config(
        "[ladder]\ntop_weight = 3\nrate_least = 0.25\nrate_most = 4\ntop_after_tau = 0\n").ladder
    assert (ladder.top_weight, ladder.rate_band, ladder.top_after_tau) == (3.0, (0.25, 4.0), 0.0)


def test_a_directory_without_a_contest_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="craits contest init"):
        load_contest_config(tmp_path)


def test_errors_from_the_file_start_with_its_path(tmp_path: Path) -> None:
    (tmp_path / "contest.toml").write_text("[limits]\nmemory_mb = 1\n")
    with pytest.raises(ConfigError) as caught:
        load_contest_config(tmp_path)
    assert str(caught.value).startswith(f"{tmp_path / 'contest.toml'}: limits.memory_mb")
