"""A small stored tournament to replay and report on, played in process in a second or two.

Games are played by seeded random policies and recorded with the log layout of the real
runner (every engine event, then every move with its decision number and time, then the
referee's strikes), so replays and reports read exactly what a real tournament leaves. One game
carries a referee strike and a defaulted move; the tournament's name is hostile HTML, to check
that every page escapes it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from craits.cli.main import main
from craits.engine import Game, Rules
from craits.tournament.config import config_from_dict
from craits.tournament.records import FinishedGame, LogEntry
from craits.tournament.schedule import Job
from craits.tournament.store import Store

HOSTILE_NAME = '<script>alert("pwn")</script> & <b>friends</b>'
BOTS = ("alpha", "beta.2", "gamma-3")
STRUCK_GAME, STRUCK_DECISION = 1, 7
"""The game and decision at which the referee strikes the seat to act and moves for it."""


@dataclass(frozen=True)
class Run:
    """What one in-process ``craits`` run printed."""

    status: int
    out: str
    err: str


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


@dataclass(frozen=True)
class Tournament:
    """The stored tournament the tests read."""

    db: Path
    id: str
    games: int


def play(job: Job) -> FinishedGame:
    """Play one job with seeded random bots, logging like ``tournament.runner``."""
    game = Game.new(Rules.from_json(job.rules_json), len(job.seats), job.seed)
    rng = random.Random(job.seed + job.rotation)
    strikes = [0] * len(job.seats)
    moves: list[LogEntry] = []
    faults: list[LogEntry] = []
    while not game.is_over:
        decision, seat = len(moves) + 1, game.to_act
        struck = job.game_index == STRUCK_GAME and decision == STRUCK_DECISION
        move = game.legal_moves()[0] if struck else rng.choice(game.legal_moves())
        if struck:
            strikes[seat] += 1
            faults.append(LogEntry("strike", seat, {"kind": "timeout", "detail": "no valid "
                                   "move within 1.000s", "decision": decision}))
        moves.append(LogEntry("move", seat, {"decision": decision, "move": str(move),
                                             "defaulted": struck}, 1.5))
        game.apply(move)
    assert game.outcome is not None
    events = [LogEntry(e.kind, e.seat, e.to_dict()) for e in game.events]
    n = len(job.seats)
    return FinishedGame(
        tournament_id=job.tournament_id, game_index=job.game_index, totals=game.outcome.totals,
        places=game.outcome.places, strikes=tuple(strikes), forfeited=(False,) * n,
        started=time.time(), finished=time.time(), log=(*events, *moves, *faults),
        outcome={"hands_played": game.outcome.hands_played},
    )


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
