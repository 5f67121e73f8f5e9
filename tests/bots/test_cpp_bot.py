"""The C++ bot (bots/cpp), built from proto/ with Debian's gRPC, against Python bots.

It shows that "any language with gRPC" holds for a compiled one, from the docs alone
(writing-a-bot.md's compiled languages, protocol.md's minimal bot). The toolchain is optional for
the README's commands (``.ci/setup`` installs it when it can) and required in CI (``.ci/run``
insists): without it this module is skipped once with the reason, or fails in CI
(``tests/optional.py``). ``make`` rebuilds only what changed, into bots/cpp/build/ (not
committed).
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

from ..optional import require
from .helpers import ROOT, match, spec

CPP = ROOT / "bots" / "cpp"
BUILD_TIMEOUT_S = 1200
TOOLS = ("g++", "make", "protoc", "grpc_cpp_plugin", "pkg-config")


def _missing_toolchain() -> str | None:
    absent = [tool for tool in TOOLS if shutil.which(tool) is None]
    if not absent:
        return None
    return f"the C++ bot's toolchain is not installed ({', '.join(absent)} missing)"


require(_missing_toolchain(), "bash .ci/install-cpp")


@pytest.fixture(scope="module")
def cpp_bot() -> Path:
    """The bot's binary, built (or brought up to date) by its Makefile."""
    built = subprocess.run(["make", "-s", "-C", str(CPP)], capture_output=True, text=True,
                           timeout=BUILD_TIMEOUT_S)
    assert built.returncode == 0, built.stdout + built.stderr
    return CPP / "build" / "craits-cpp-bot"


def test_cpp_bot_plays_a_full_game_against_python_bots(cpp_bot: Path, tmp_path: Path) -> None:
    game = spec("cpp-full", preset("standard"), seed=5)
    result = match([str(cpp_bot), "greedy", "random"], game, tmp_path)
    assert result.outcome.hands_played == 15
    assert result.faults == [] and result.strikes == (0, 0, 0)
    assert not any(result.forfeited) and not any(m.defaulted for m in result.moves)
    assert sum(1 for m in result.moves if m.seat == 0) > 50


def _run(binary: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(binary)], env={**os.environ, **env}, capture_output=True,
                          text=True, timeout=30)


def test_a_bad_token_is_printed_and_exits_2(cpp_bot: Path) -> None:
    async def main() -> subprocess.CompletedProcess[str]:
        async with open_referee() as referee:
            env = {"CRAITS_SERVER": referee.address, "CRAITS_TOKEN": "not-issued"}
            return await trio.to_thread.run_sync(_run, cpp_bot, env)

    proc = bridge.run(main)
    assert proc.returncode == 2 and "ERROR_CODE_BAD_TOKEN" in proc.stderr


def test_the_referee_shutting_down_is_a_normal_end(cpp_bot: Path) -> None:
    async def main() -> int:
        async with open_referee() as referee:
            entry = referee.hub.issue_token("cpp")
            env = {**os.environ, "CRAITS_SERVER": referee.address, "CRAITS_TOKEN": entry.token}
            process = await trio.lowlevel.open_process(
                [str(cpp_bot)], env=env, stderr=subprocess.DEVNULL
            )
            assert await referee.hub.wait_connected(entry, 30)
        with trio.fail_after(30):
            return await process.wait()

    assert bridge.run(main) == 0
