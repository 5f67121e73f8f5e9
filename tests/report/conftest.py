"""Fixtures for the report tests: the small stored tournament of ``helpers`` (played in
process in a second or two), its HTML report, and ``craits`` run in process."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from craits.cli.main import main
from craits.tournament.plan.config import config_from_dict
from craits.tournament.store.database import Store

from .helpers import BOTS, HOSTILE_NAME, Run, Tournament, play


@pytest.fixture
def craits(capsys: pytest.CaptureFixture[str]) -> Callable[..., Run]:
    """Run ``craits *argv`` in this process; stdout is captured, so it is not a terminal."""

    def run(*argv: str | Path) -> Run:
        try:
            status = main([str(a) for a in argv])
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else 1
        captured = capsys.readouterr()
        return Run(status, captured.out, captured.err)

    return run


@pytest.fixture(scope="session")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Tournament:
    """Three bots, tables of three, face cards on, one deal set: three recorded games."""
    db = tmp_path_factory.mktemp("report") / "results.sqlite"
    config = config_from_dict({
        "name": HOSTILE_NAME, "seed": 11, "table_size": 3, "deal_sets": 1,
        "rules": {"face_cards": True}, "bots": [{"name": b} for b in BOTS],
    })
    with Store.open(db) as store:
        tid = store.create_tournament(config)
        jobs = store.jobs(tid)
        for job in jobs:
            assert store.record_game(play(job))
        store.set_status(tid, "finished")
    return Tournament(db, tid, len(jobs))


@pytest.fixture(scope="session")
def site(tournament: Tournament, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The HTML report of the tournament, written once for every test that reads it."""
    from craits.report.site import write_site

    out = tmp_path_factory.mktemp("site")
    with Store.open(tournament.db) as store:
        write_site(store, tournament.id, out)
    return out
