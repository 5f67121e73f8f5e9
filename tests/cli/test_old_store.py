"""A results database written before game records (schema 3: one row per event) still works.

The fixture (``tests/fixtures/store-v3.sqlite.gz``, see the README beside it) was written by
craits as it was, and left as a killed run leaves it. Every command that only reads opens it
as it is and never changes it; ``resume`` migrates it (its recorded games become records, their
event rows go) and finishes it, and the recorded games read the same before and after.
"""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path

import pytest

from craits.tournament.store.schema import SCHEMA_VERSION

from .helpers import Runner

FIXTURE = Path(__file__).parents[1] / "fixtures" / "store-v3.sqlite.gz"
TID = "ac21212db5"


@pytest.fixture
def old_db(tmp_path: Path) -> Path:
    """A fresh copy of the schema 3 store."""
    db = tmp_path / "old.sqlite"
    db.write_bytes(gzip.decompress(FIXTURE.read_bytes()))
    return db


def schema(db: Path) -> tuple[int, int, int]:
    """Schema version, event rows, and games with a record (none before records)."""
    with sqlite3.connect(db) as con:
        version = con.execute("PRAGMA user_version").fetchone()[0]
        events = con.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        columns = [row[1] for row in con.execute("PRAGMA table_info(games)")]
        records = (con.execute("SELECT COUNT(record) FROM games").fetchone()[0]
                   if "record" in columns else 0)
    con.close()
    return version, events, records


READ_ONLY = [
    ("tournament", "list"), ("tournament", "list", "--json"), ("tournament", "show", TID),
    ("tournament", "show", TID, "--json"), ("tournament", "show", TID, "--csv"),
    ("replay", TID, "0"), ("replay", TID, "1", "--seat", "1"), ("replay", TID, "1", "--json"),
]


@pytest.mark.parametrize("command", READ_ONLY, ids=" ".join)
def test_every_read_only_command_reads_it_and_leaves_it_unchanged(
    cli: Runner, old_db: Path, command: tuple[str, ...]
) -> None:
    before = old_db.read_bytes()
    done = cli(*command, "--db", str(old_db))
    assert done.status == 0, done.err
    assert done.out.strip()
    assert old_db.read_bytes() == before
    assert schema(old_db) == (3, 1281, 0)


def test_the_html_report_reads_it_and_leaves_it_unchanged(cli: Runner, old_db: Path,
                                                          tmp_path: Path) -> None:
    before = old_db.read_bytes()
    done = cli("report", TID, "--html", str(tmp_path / "site"), "--db", str(old_db))
    assert done.status == 0, done.err
    assert (tmp_path / "site" / "games" / "game-1.html").exists()
    assert old_db.read_bytes() == before


@pytest.mark.slow
def test_resume_migrates_it_and_the_games_read_the_same(cli: Runner, old_db: Path) -> None:
    replays = [cli("replay", TID, str(i), "--json", "--db", str(old_db)).out for i in (0, 1)]
    resumed = cli("tournament", "resume", TID, "--db", str(old_db), "--quiet")
    assert resumed.status == 0, resumed.err
    assert schema(old_db) == (SCHEMA_VERSION, 0, 4)
    for i, before in enumerate(replays):
        assert cli("replay", TID, str(i), "--json", "--db", str(old_db)).out == before
    listed = cli("tournament", "list", "--json", "--db", str(old_db)).json()
    assert [(t["status"], t["done"]) for t in listed["tournaments"]] == [("finished", 4)]
    events = json.loads(cli("replay", TID, "3", "--json", "--db", str(old_db)).out)["events"]
    assert events[-1]["kind"] == "final"


@pytest.mark.slow
def test_an_old_game_that_does_not_replay_keeps_its_log_and_stays_an_error(
    cli: Runner, old_db: Path
) -> None:
    with sqlite3.connect(old_db) as con:
        game_id, idx, data = con.execute(
            "SELECT e.game_id, e.idx, e.data FROM events e JOIN games g ON g.id = e.game_id"
            " JOIN jobs j ON j.id = g.job_id WHERE j.game_index = 1 AND e.kind = 'play'"
            " ORDER BY e.idx LIMIT 1").fetchone()
        played = json.loads(data)
        played["cards"] = ["KS" if played["cards"] != ["KS"] else "KH"]
        con.execute("UPDATE events SET data=? WHERE game_id=? AND idx=?",
                    (json.dumps(played), game_id, idx))
    con.close()
    resumed = cli("tournament", "resume", TID, "--db", str(old_db), "--quiet")
    assert resumed.status == 0, resumed.err
    version, events, records = schema(old_db)
    assert (version, records) == (SCHEMA_VERSION, 3) and events > 0
    assert cli("replay", TID, "0", "--db", str(old_db)).status == 0
    damaged = cli("replay", TID, "1", "--db", str(old_db))
    assert damaged.status == 1 and damaged.err.startswith("craits: error: game 1: event ")
