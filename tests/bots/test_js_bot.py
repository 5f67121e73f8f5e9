"""The JavaScript bot (bots/js) against Python bots over real gRPC.

Node and the bot's packages are required, never skipped: CI installs them (.ci/setup runs
``npm ci``), and a missing runtime must show up as a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import trio

from craits.engine import preset
from craits.referee import bridge
from craits.referee.server import open_referee

from .helpers import JS_BOT, match, spec

NODE_MODULES = JS_BOT.parent / "node_modules"


@pytest.fixture(scope="module", autouse=True)
def _node_installed() -> None:
    assert shutil.which("node"), "node is required for the JavaScript bot (Node.js 20)"
    assert (NODE_MODULES / "@grpc" / "grpc-js").is_dir(), "run `bash .ci/setup` (npm ci)"


def test_js_bot_plays_a_full_game_against_python_bots(tmp_path: Path) -> None:
    game = spec("js-full", preset("standard"), seed=11)
    result = match([f"node {JS_BOT}", "greedy", "random"], game, tmp_path)
    assert result.outcome.hands_played == 15
    assert result.faults == [] and result.strikes == (0, 0, 0)
    assert not any(result.forfeited) and not any(m.defaulted for m in result.moves)
    assert sum(1 for m in result.moves if m.seat == 0) > 50


def test_js_bot_heuristic_beats_random_over_a_few_games(tmp_path: Path) -> None:
    totals = [0, 0]
    for seed in (1, 2, 3):
        result = match([f"node {JS_BOT}", "random"], spec(f"js-{seed}", seed=seed), tmp_path)
        assert result.faults == []
        totals = [a + b for a, b in zip(totals, result.totals, strict=True)]
    assert totals[0] < totals[1]


def _run_js(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["node", str(JS_BOT)], env={**os.environ, **env}, capture_output=True, text=True,
        timeout=30,
    )


def test_a_fatal_error_is_printed_and_exits_2() -> None:
    async def main() -> subprocess.CompletedProcess[str]:
        async with open_referee() as referee:
            env = {"CRAITS_SERVER": referee.address, "CRAITS_TOKEN": "not-issued"}
            return await trio.to_thread.run_sync(_run_js, env)

    proc = bridge.run(main)
    assert proc.returncode == 2
    assert "ERROR_CODE_BAD_TOKEN" in proc.stderr and "unknown token" in proc.stderr


def test_the_referee_shutting_down_is_a_normal_end() -> None:
    async def main() -> int:
        async with open_referee() as referee:
            entry = referee.hub.issue_token("js")
            env = {**os.environ, "CRAITS_SERVER": referee.address, "CRAITS_TOKEN": entry.token}
            process = await trio.lowlevel.open_process(
                ["node", str(JS_BOT)], env=env, stderr=subprocess.DEVNULL
            )
            assert await referee.hub.wait_connected(entry, 30)
        with trio.fail_after(30):
            return await process.wait()

    assert bridge.run(main) == 0


def test_missing_environment_exits_2() -> None:
    proc = _run_js({"CRAITS_SERVER": "", "CRAITS_TOKEN": ""})
    assert proc.returncode == 2 and "CRAITS_SERVER" in proc.stderr


def test_node_unit_tests_pass() -> None:
    proc = subprocess.run(
        ["node", "--test", "test/"], cwd=JS_BOT.parent, capture_output=True, text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr

