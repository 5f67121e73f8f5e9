"""Phases on a virtual clock and a real store: the dates, the organiser's command over them, the
finals (top N fixed, ratings reset, finalists only, done at the target) and the export."""

from __future__ import annotations

import csv
import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar, TypeVarTuple

import pytest
import trio
import trio.testing

from craits.contest.ladder import Ladder
from craits.contest.ladderstore import LadderTable
from craits.contest.phases import PhaseError, finals_of, finals_turn, phase_now, set_phase
from craits.contest.results import export_results
from craits.contest.service import open_contest
from craits.contest.validation import ContestRun
from craits.contest.versions import VersionState

from .ladder_tables import played_table
from .processes import craits
from .server import Clock, make_contest
from .uploaded import add_version, wrapped

T = TypeVar("T")
Ts = TypeVarTuple("Ts")

OPEN, FREEZE, FINALS = (dt.datetime(2030, 5, d, tzinfo=dt.UTC).timestamp() for d in (1, 2, 3))
DATES = ('phases.open = 2030-05-01T00:00:00Z\nphases.freeze = 2030-05-02T00:00:00Z\n'
         'phases.finals = 2030-05-03T00:00:00Z\nphases.finalists = 2\n'
         'phases.finals_deal_sets = 2\n')


def test_dates_command_finals_and_export(tmp_path: Path) -> None:
    contest = tmp_path / "cup"
    make_contest(contest, DATES, names=("ann", "bob", "cid"))
    clock = Clock(OPEN - 60)
    run = open_contest(contest, clock)
    config, store = run.config, run.store
    assert phase_now(config, store, clock()) == "before"
    clock.now = OPEN + 60
    assert phase_now(config, store, clock()) == "open"
    assert set_phase(config, store, "frozen", clock()) == "frozen"  # the command wins
    assert set_phase(config, store, "dates", clock()) == "open"
    with pytest.raises(PhaseError, match="at least 2 versions on the board"):
        set_phase(config, store, "finals", clock())

    versions = [add_version(contest, store, c, wrapped(k))
                for c, k in ((1, "greedy"), (2, "lowcard"), (3, "random"))]
    for v in versions:
        store.set_state(v.id, VersionState.RATED, clock())
    ids = [v.id for v in versions]
    for _ in range(3):
        played_table(store, ids[:2], ids[0])
        played_table(store, ids[1:], ids[1])
    ladder = Ladder(ContestRun(contest, config, store, clock), seed=1)
    trio_refresh(ladder)
    assert [r["version_id"] for r in store.standings()] == ids

    clock.now = FREEZE + 60
    assert phase_now(config, store, clock()) == "frozen"
    assert run.phase() == "frozen"  # what the API refuses uploads by
    clock.now = FINALS + 60
    assert phase_now(config, store, clock()) == "finals"  # by the date, before it starts
    assert finals_of(store) is None
    assert len(ladder.playing()) == 3
    assert ladder.games() and not trio_step_blocked(ladder)  # the step starts the finals...
    finals = finals_of(store)
    assert finals is not None and finals.finalists == tuple(ids[:2])
    assert [v.id for v in ladder.playing()] == ids[:2] and ladder.games() == []  # reset
    with pytest.raises(PhaseError, match="cannot be undone"):
        set_phase(config, store, "open", clock())

    played_table(store, ids[:2], ids[1])  # the finals' games alone count: bob leads
    trio_refresh(ladder)
    assert [r["version_id"] for r in store.standings()] == [ids[1], ids[0]]
    assert phase_now(config, store, clock()) == "finals"
    played_table(store, ids[:2], ids[1])
    assert trio_step_blocked(ladder)  # each finalist has its 2 deal sets: done
    assert phase_now(config, store, clock()) == "done" and run.phase() == "done"

    out = tmp_path / "results"
    export_results(config, store, out, clock())
    data = json.loads((out / "results.json").read_text())
    assert data["final"] and data["phase"] == "done" and data["finals"]["deal_sets"] == 2
    rows = list(csv.DictReader((out / "results.csv").open()))
    # The finalists by the finals, then the rest by the board when the finals started.
    assert [(r["rank"], r["contestant"], r["stage"]) for r in rows] == [
        ("1", "bob", "finals"), ("2", "ann", "finals"), ("3", "cid", "ladder")]
    assert [r["version_id"] for r in data["rows"]] == [ids[1], ids[0], ids[2]]
    html = (out / "results.html").read_text()
    assert "final results" in html
    assert html.index("bob") < html.index("ann") < html.index("cid")
    store.close()


def test_a_done_contests_ladder_stops_and_reads_no_games(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the finals are done the ladder claims nothing and refits nothing more: ten
    virtual minutes of it after the step that declares them done read no game (it used to
    ask for a refit and a table every second)."""
    contest = tmp_path / "cup"
    make_contest(contest, DATES, names=("ann", "bob"))
    clock = Clock(OPEN + 60)
    run = open_contest(contest, clock)
    config, store = run.config, run.store
    ids = [add_version(contest, store, c, wrapped(k)).id for c, k in ((1, "greedy"),
                                                                       (2, "lowcard"))]
    for v in ids:
        store.set_state(v, VersionState.RATED, clock())
    for _ in range(2):
        played_table(store, ids, ids[0])
    ladder = Ladder(ContestRun(contest, config, store, clock), seed=1)
    trio_refresh(ladder)
    set_phase(config, store, "finals", clock())
    for _ in range(2):  # each finalist's 2 deal sets: the next step declares the finals done
        played_table(store, ids, ids[1])
    reads: list[float] = []
    claims: list[float] = []

    async def counted(fn: Callable[[*Ts], T], /, *args: *Ts) -> T:
        reads.append(trio.current_time())
        return fn(*args)

    async def claim() -> LadderTable | None:
        claims.append(trio.current_time())
        return await Ladder.claim(ladder)

    ladder.refitter.offload = counted
    monkeypatch.setattr(ladder, "claim", claim)

    async def serve() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(ladder.run)
            await trio.sleep(600)
            nursery.cancel_scope.cancel()

    trio.run(serve, clock=trio.testing.MockClock(autojump_threshold=0))
    assert phase_now(config, store, clock()) == "done"
    assert [r["version_id"] for r in store.standings()] == [ids[1], ids[0]]  # the finals' board
    assert claims == [0.0] and reads and set(reads) == {0.0}
    store.close()


@pytest.mark.slow
def test_the_organisers_commands(tmp_path: Path) -> None:
    contest = tmp_path / "cup"
    make_contest(contest, names=("ann",))
    assert "Test cup: open" in craits("contest", "phase", contest).stdout
    refused = craits("contest", "phase", contest, "finals", check=False)
    assert refused.returncode != 0 and "at least 2 versions on the board" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert "frozen" in craits("contest", "phase", contest, "frozen").stdout
    text = craits("contest", "export", contest, "--out", tmp_path / "out").stdout
    assert "results.html" in text and "not final results yet" in text
    assert json.loads((tmp_path / "out" / "results.json").read_text())["phase"] == "frozen"
    assert "open" in craits("contest", "phase", contest, "dates").stdout
    missing = craits("contest", "export", tmp_path / "nowhere", "--out", tmp_path, check=False)
    assert missing.returncode != 0 and "no contest here" in missing.stderr


def trio_refresh(ladder: Ladder) -> None:
    trio.run(ladder.refresh)


def trio_step_blocked(ladder: Ladder) -> bool:
    """Whether the ladder's next step refuses to play (``finals_turn`` false); a step that
    would play is not run (it would start bots): only its gate is asked."""
    run = ladder.contest
    return not finals_turn(run.config, run.store, ladder.games,
                           [v.id for v in ladder.playing()], run.clock())
