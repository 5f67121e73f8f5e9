"""The choices made before any actor starts: how many workers, what is shipped, where a node
plays. No cluster needed (the cluster tests are beside this file)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from craits.tournament.run.ray_actor import on_this_node
from craits.tournament.run.ray_pool import RayError, _excludes
from craits.tournament.run.runner import ray_worker_count
from craits.tournament.run.worker_process import WorkerSetup


def test_one_worker_per_cpu_of_the_cluster_never_more_than_the_games_left() -> None:
    assert ray_worker_count(None, cpus=16, pending=100) == 16
    assert ray_worker_count(None, cpus=16, pending=3) == 3
    assert ray_worker_count(4, cpus=16, pending=100) == 4
    with pytest.raises(RayError, match=r"--workers 20 needs 20 CPUs .* which has 16"):
        ray_worker_count(20, cpus=16, pending=100)


def test_the_store_and_the_logs_are_left_out_of_the_shipped_directory(tmp_path: Path) -> None:
    store = tmp_path / "cup.sqlite"
    private = (store, store.with_name("cup.sqlite-wal"), tmp_path / "logs",
               tmp_path.parent / "elsewhere.sqlite")
    assert _excludes(tmp_path, private) == ["/cup.sqlite", "/cup.sqlite-wal", "/logs"]


def test_a_node_plays_in_the_shipped_copy_and_logs_where_it_can(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    copy = tmp_path / "copy"
    copy.mkdir()
    monkeypatch.chdir(copy)
    setup = WorkerSetup("t1", {}, tmp_path / "run" / "logs" / "t1", tmp_path / "run", (),
                        "127.0.0.1")
    shipped = on_this_node(setup, shipped=True)  # the run's log directory is not on this node:
    # the node's temp directory (pytest's, in the suite: tests/conftest.py)
    assert shipped.workdir == copy
    assert shipped.log_dir.is_dir() and shipped.log_dir.parts[-2:] == ("craits-logs", "t1")
    setup.log_dir.mkdir(parents=True)  # a shared filesystem: the run's directories are here
    assert on_this_node(setup, shipped=False) == setup
    assert on_this_node(setup, shipped=True) == dataclasses.replace(setup, workdir=copy)
