"""``craits tournament``: user mistakes are one-line errors; show/list/CSV read the store."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from craits.tournament.store.database import Store

from .helpers import TINY, Runner, not_mine

CRAITS = [sys.executable, "-m", "craits"]

SMALL = TINY.replace('name = "tiny"', 'name = "tiny"\nseed = 5')


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CRAITS, *args], capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_config_mistake_names_the_key(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(SMALL.replace('name = "lowcard"', 'name = "lowcard"\ncomand = "x"'))
    done = _run("tournament", "run", str(bad), "--db", str(tmp_path / "t.sqlite"))
    assert done.returncode == 2
    assert "bots[1].comand" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_missing_file_and_unknown_id_are_clear_errors(tmp_path: Path) -> None:
    db = str(tmp_path / "t.sqlite")
    missing = _run("tournament", "run", str(tmp_path / "nope.toml"), "--db", db)
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    no_db = _run("tournament", "show", "deadbeef", "--db", db)
    assert no_db.returncode == 2 and f"no results database at {db}" in no_db.stderr
    Store.open(db).close()
    unknown = _run("tournament", "show", "deadbeef", "--db", db)
    assert unknown.returncode == 2 and "deadbeef" in unknown.stderr
    assert "Traceback" not in missing.stderr + no_db.stderr + unknown.stderr


@pytest.mark.slow
def test_run_then_list_show_and_csv(tmp_path: Path) -> None:
    config = tmp_path / "tiny.toml"
    config.write_text(SMALL)
    db = str(tmp_path / "t.sqlite")
    ran = _run("tournament", "run", str(config), "--db", db, "--json")
    assert ran.returncode == 0, ran.stderr
    final = json.loads(ran.stdout)
    assert final["games"] == 2 and {r["bot"] for r in final["rows"]} == {"greedy", "lowcard"}
    tid = final["tournament"]
    listed = json.loads(_run("tournament", "list", "--db", db, "--json").stdout)
    assert listed["tournaments"][0]["id"] == tid
    assert listed["tournaments"][0]["status"] == "finished"
    shown = json.loads(_run("tournament", "show", tid, "--db", db, "--json").stdout)
    assert shown["rows"] == final["rows"]
    rows = list(csv.DictReader(io.StringIO(_run("tournament", "show", tid, "--db", db,
                                                "--csv").stdout)))
    assert len(rows) == 4  # 2 games x 2 seats
    text = _run("tournament", "show", tid, "--db", db).stdout
    assert "greedy" in text and "95% interval" in text


MATCH = """
name = "a-vs-b"
mode = "match"
seed = 3
deal_sets = 60
[rules]
short_game = true
[sprt]
elo0 = 0
elo1 = 100
[[bots]]
name = "greedy"
[[bots]]
name = "random"
"""


@pytest.mark.slow
def test_match_mode_stops_early_when_the_sprt_decides(tmp_path: Path) -> None:
    config = tmp_path / "match.toml"
    config.write_text(MATCH)
    db = str(tmp_path / "m.sqlite")
    ran = _run("tournament", "run", str(config), "--db", db, "--json")
    assert ran.returncode == 0, ran.stderr
    final = json.loads(ran.stdout)
    assert final["sprt"]["decision"] == "H1"
    assert final["games"] < 2 * 60  # stopped well before the last deal set
    assert final["games"] == 2 * final["sprt"]["deal_sets"] or final["games"] > 0
    listed = json.loads(_run("tournament", "list", "--db", db, "--json").stdout)
    assert listed["tournaments"][0]["done"] == final["games"]


@pytest.mark.slow
def test_a_gauntlet_with_sprt_stops_when_its_bot_beats_the_field(tmp_path: Path) -> None:
    config = tmp_path / "gauntlet.toml"
    config.write_text(MATCH.replace('mode = "match"', 'mode = "gauntlet"\ngauntlet = "greedy"\n'
                                    "table_size = 2") + '[[bots]]\nname = "lowcard"\n')
    ran = _run("tournament", "run", str(config), "--db", str(tmp_path / "g.sqlite"))
    assert ran.returncode == 0, ran.stderr
    assert "SPRT greedy vs the field: H1 accepted" in ran.stdout
    assert "H1: greedy is stronger than the field" in ran.stdout
    played = re.search(r"^(\d+) games in ", ran.stdout, re.MULTILINE)
    assert played is not None, ran.stdout
    games = int(played[1])
    assert games < 2 * 2 * 60  # two meetings of two seatings: stopped well before the end


@pytest.mark.slow
def test_misspelt_bot_is_a_one_line_error(tmp_path: Path) -> None:
    config = tmp_path / "typo.toml"
    config.write_text(SMALL.replace('name = "lowcard"', 'name = "mine"\ncommand = "gredy"'))
    done = _run("tournament", "run", str(config), "--db", str(tmp_path / "t.sqlite"))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "unknown bot 'gredy'" in done.stderr
    assert done.stderr.count("\n") == 1  # found before a tournament is created
    assert not (tmp_path / "t.sqlite").exists()
    match = subprocess.run([*CRAITS, "match", "--bot", "gredy", "--bot", "greedy"],
                           capture_output=True, text=True, timeout=120)
    assert match.returncode == 2 and "not a bundled bot" in match.stderr


@pytest.mark.parametrize(("content", "reason"), [
    (None, "cannot read: No such file or directory"),
    ("dir", "cannot read: Is a directory"),
    (b"name = [", "not valid TOML"),
    ('name = "caf\xe9"\n'.encode("latin-1"), "not UTF-8 text (invalid continuation byte at "
     "byte 11); save it as UTF-8"),
    (SMALL.replace('name = "lowcard"', 'name = "lowcard"\ncomand = "x"').encode(),
     "bots[1].comand: unknown key"),
])
def test_a_bad_configuration_file_is_named_once(cli: Runner, tmp_path: Path,
                                                content: bytes | str | None,
                                                reason: str) -> None:
    path = tmp_path / "cup.toml"
    if content == "dir":
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    done = cli("tournament", "run", str(path), "--db", str(tmp_path / "t.sqlite"))
    done.assert_usage_error(f"craits: error: {path}: {reason}")
    assert done.err.count(str(path)) == 1


@pytest.mark.slow
def test_an_unreadable_configuration_file_is_named_once(unprivileged: Runner,
                                                        tmp_path: Path) -> None:
    path = tmp_path / "cup.toml"
    path.write_text(SMALL)
    not_mine(path)
    path.chmod(0)
    done = unprivileged("tournament", "run", str(path), "--db", str(tmp_path / "t.sqlite"))
    done.assert_usage_error(f"craits: error: {path}: cannot read: Permission denied")
    assert done.err.count(str(path)) == 1
