"""The in-process lane: SDK bots played inside the runner, judged like bot processes.

Real runs throughout (a real SQLite store; the gRPC lane with a real referee and real bot
processes): the same tournament seed gives the very same games in either lane, and a bot that
raises, answers illegally or thinks too long is charged by the same failure policy.
"""

from __future__ import annotations

import dataclasses
import os
import signal
from pathlib import Path
from typing import Any

import pytest
import trio

from craits.hosting.launcher import LaunchError
from craits.referee import bridge
from craits.referee.bridge import DEFAULT_HOST
from craits.report.stored import iter_games
from craits.tournament.plan.config import BotSpec, ConfigError, config_from_dict, fairness_notes
from craits.tournament.plan.schedule import build_schedule
from craits.tournament.run.botpool import check_launchable
from craits.tournament.run.runner import RunOptions, run_tournament, worker_count
from craits.tournament.run.worker_pool import WorkerError, WorkerTables
from craits.tournament.run.worker_process import WorkerSetup
from craits.tournament.store.database import Store, TournamentInfo
from tests.procfs import wait_dead

TARGETS = {
    "greedy": "craits_bots.greedy:GreedyBot",
    "lowcard": "craits_bots.lowcard:LowCardBot",
    "random": "craits_bots.random:RandomBot",
}


def _config(lanes: dict[str, str], **extra: Any) -> dict[str, Any]:
    """Greedy, lowcard and random, each bundled (a bot process) or ``python`` (in process)."""
    bots = [{"name": name, "python": TARGETS[name]} if lane == "python" else {"name": name}
            for name, lane in lanes.items()]
    return {"name": "lanes", "seed": 41, "table_size": 3, "deal_sets": 2, "concurrency": 3,
            "rules": {"short_game": True}, "bots": bots, **extra}


def _play(tmp_path: Path, data: dict[str, Any], label: str, workers: int = 1
          ) -> tuple[Store, str]:
    store = Store.open(tmp_path / f"{label}.sqlite")
    tid = store.create_tournament(config_from_dict(data), tournament_id="cup")
    bridge.run(run_tournament, store, tid, RunOptions(tmp_path / "logs" / label, workers=workers))
    return store, tid


def _games(store: Store, tid: str) -> list[tuple[Any, ...]]:
    """Every game's result, events, moves (minus their timing) and faults, as stored."""
    return [
        (g.game_index, g.result.totals, g.result.places, g.result.strikes, g.events,
         [(m.seat, str(m.move), m.decision, m.defaulted) for m in g.decisions], g.faults)
        for g in iter_games(store, tid)
    ]


@pytest.mark.slow
def test_the_same_games_in_process_over_grpc_mixed_and_in_worker_processes(
    tmp_path: Path,
) -> None:
    names = ("greedy", "lowcard", "random")
    runs = {
        label: _games(*_play(tmp_path, _config(lanes), label, workers))
        for label, lanes, workers in (
            ("grpc", dict.fromkeys(names, "bundled"), 1),
            ("inprocess", dict.fromkeys(names, "python"), 1),
            ("mixed", {"greedy": "python", "lowcard": "bundled", "random": "python"}, 1),
            ("inprocess-2-workers", dict.fromkeys(names, "python"), 2),
            ("mixed-2-workers", {"greedy": "bundled", "lowcard": "python", "random": "bundled"},
             2),
        )
    }
    assert len(runs["grpc"]) == 6
    assert len(runs["grpc"][0][5]) > 20  # moves
    for label, games in runs.items():
        assert games == runs["grpc"], label


def _faults(tmp_path: Path, target: str, **extra: Any) -> list[tuple[int, str, str]]:
    """(seat, kind, detail) of every fault against the misbehaving bot, over its games."""
    data = _config({"greedy": "python"}, table_size=2, deal_sets=1, **extra)
    data["bots"].append({"name": "bad", "python": f"tests.tournament.inprocess_bots:{target}"})
    store, tid = _play(tmp_path, data, target)
    assert store.tournament(tid).jobs == {"pending": 0, "running": 0, "done": 2, "skipped": 0}
    faults = []
    for game in iter_games(store, tid):
        bad = game.job.seats.index("bad")
        assert game.result.forfeited[bad] and game.result.places[bad] == 2
        assert all(fault.seat == bad for fault in game.faults)
        faults += [(fault.seat, fault.reason, fault.detail) for fault in game.faults]
    return faults


def test_an_exception_is_a_recorded_fault(tmp_path: Path) -> None:
    faults = _faults(tmp_path, "Raiser")
    assert faults and {kind for _, kind, _ in faults} == {"error"}
    assert all(detail == "RuntimeError: boom" for _, _, detail in faults)


def test_an_illegal_move_is_refused_then_struck(tmp_path: Path) -> None:
    faults = _faults(tmp_path, "Illegal", failure={"max_retries": 1, "max_strikes": 2})
    assert faults and {kind for _, kind, _ in faults} == {"bad_replies"}


@pytest.mark.slow
def test_a_slow_move_is_charged_after_the_fact(tmp_path: Path) -> None:
    faults = _faults(tmp_path, "Slow", time={"move_ms": 200, "bank_ms": 0},
                     failure={"max_strikes": 1})
    assert [kind for _, kind, _ in faults] == ["timeout"] * 2  # one forfeit in each game
    assert all("charged after the fact" in detail for _, _, detail in faults)


@pytest.mark.parametrize(("target", "says"), [
    ("no_such_module_here:Bot", "cannot import 'no_such_module_here'"),
    ("tests.tournament.inprocess_bots:Missing", "has no 'Missing'"),
    ("tests.tournament.inprocess_bots:NotABot", "is not a subclass of craits_sdk.Bot"),
])
def test_a_bot_that_cannot_be_made_is_refused_before_play(target: str, says: str) -> None:
    config = config_from_dict(_config({"greedy": "python", "lowcard": "python"}, table_size=2)
                              | {"bots": [{"name": "greedy"}, {"name": "x", "python": target}]})
    with pytest.raises(LaunchError, match=f"bot 'x': .*{says}"):
        check_launchable(config.bots)


def test_python_is_module_colon_class_and_only_one_kind() -> None:
    def two(second: dict[str, Any]) -> dict[str, Any]:
        return {"table_size": 2, "bots": [{"name": "a"}, {"name": "b", **second}]}

    with pytest.raises(ConfigError, match=r"bots\[1\]\.python: 'greedy' is not module:Class"):
        config_from_dict(two({"python": "greedy"}))
    with pytest.raises(ConfigError, match="one of bundled, command, python or remote"):
        config_from_dict(two({"python": "m:C", "command": "x"}))
    config = config_from_dict(two({"python": "m.n:C"}))
    assert any(note.startswith("b play in this process") for note in fairness_notes(config))
    spec = config.bots[1]
    assert (spec.kind, spec.python, spec.to_dict()) == ("python", "m.n:C",
                                                        {"name": "b", "python": "m.n:C"})


@pytest.mark.slow
def test_a_worker_killed_mid_run_pauses_it_and_a_resume_plays_the_same_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    lanes = dict.fromkeys(("greedy", "lowcard", "random"), "python")
    straight = _games(*_play(tmp_path, _config(lanes), "straight"))
    data = _config(lanes)
    data["bots"][0]["python"] = "tests.tournament.inprocess_bots:DiesOnce"
    marker = tmp_path / "kill-once"
    marker.touch()
    monkeypatch.setenv("KILL_ONCE", str(marker))
    with pytest.raises(WorkerError, match=r"worker process \d exited with status -9"):
        _play(tmp_path, data, "killed", workers=2)
    assert not marker.exists()
    store = Store.open(tmp_path / "killed.sqlite")
    assert store.tournament("cup").status == "paused"
    assert store.tournament("cup").jobs["done"] < len(straight)
    bridge.run(run_tournament, store, "cup", RunOptions(tmp_path / "logs" / "killed", workers=2))
    assert _games(store, "cup") == straight


@pytest.mark.slow
def test_a_job_sent_to_a_worker_already_dead_fails_as_the_worker_does(tmp_path: Path) -> None:
    """A table can be first to find a worker dead (its job's send fails) before the listener
    is: it must raise the listener's ``WorkerError``, not a ``BrokenPipeError``, or a killed
    worker ends the run in an exception group (a race seen in the test above, under load)."""
    config = config_from_dict(_config(dict.fromkeys(("greedy", "lowcard", "random"), "python")))
    setup = WorkerSetup("cup", config.to_dict(), tmp_path / "logs", tmp_path, (), DEFAULT_HOST)
    worker = WorkerTables(1, setup)
    trio.run(worker.ready)
    os.kill(worker.pid, signal.SIGKILL)
    wait_dead(worker.pid)
    with pytest.raises(WorkerError, match=r"worker process 1 exited with status -9"):
        trio.run(worker.play, build_schedule(config, "cup")[0])


def test_how_many_workers_start() -> None:
    config = config_from_dict(_config(dict.fromkeys(("greedy", "lowcard", "random"), "python"),
                                      concurrency=4))
    pending = {"pending": 40, "running": 0, "done": 0, "skipped": 0}
    info = TournamentInfo("cup", "lanes", 41, "", "running", pending, None)
    free = (DEFAULT_HOST, 0)
    assert worker_count(config, 3, info, free) == 3
    assert worker_count(config, 3, info, (DEFAULT_HOST, 50051)) == 1  # one referee on a port
    assert worker_count(config, 3, info, ("0.0.0.0", 0)) == 1  # a host for remote bots
    assert worker_count(config, None, info, free) == min(os.cpu_count() or 1, 40 // 8)
    few = dataclasses.replace(info, jobs={**pending, "pending": 2})
    assert worker_count(config, 3, few, free) == 2
    assert worker_count(config, None, few, free) == 1
    remote = dataclasses.replace(config, bots=(*config.bots[:2], BotSpec("far", "remote")))
    assert worker_count(remote, 3, info, free) == 1
