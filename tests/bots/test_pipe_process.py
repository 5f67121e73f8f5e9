"""``craits pipe`` as a process: usage errors before connecting, its exit statuses, SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from craits.cli.main import main
from craits.hosting.match import run_match
from craits.referee import bridge
from craits.referee.game import PlayedGame
from craits.referee.server import open_referee

from .helpers import pipe, spec

CRAITS = [sys.executable, "-m", "craits"]


def _pipe_process(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CRAITS, "pipe", *args], capture_output=True, text=True, timeout=60)


def _usage_error(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """Run ``craits pipe ARGS`` in process; return its one error line (exit status 2)."""
    assert main(["pipe", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("craits: error: ") and err.count("\n") == 1
    return err


def test_missing_server_or_token_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CRAITS_SERVER", raising=False)
    monkeypatch.delenv("CRAITS_TOKEN", raising=False)
    assert "CRAITS_SERVER" in _usage_error(capsys, "--", "cat")
    assert "CRAITS_TOKEN" in _usage_error(capsys, "--server", "127.0.0.1:1", "--", "cat")
    assert "--attempts" in _usage_error(capsys, "--server", "h:1", "--token", "t",
                                        "--attempts", "-1", "--", "cat")


def test_a_command_that_does_not_exist_is_refused_before_connecting(
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = _usage_error(capsys, "--server", "127.0.0.1:1", "--token", "t", "--", "no-such-bot")
    assert "'no-such-bot'" in err and "not found" in err


@pytest.mark.slow
def test_a_bad_token_exits_2_and_a_clean_end_of_stream_exits_0() -> None:
    async def main() -> tuple[int, int]:
        async with open_referee() as referee:
            bad = await trio.to_thread.run_sync(
                _pipe_process, "--server", referee.address, "--token", "nope", "--", "cat"
            )
            entry = referee.hub.issue_token("piper")
            argv = [*CRAITS, "pipe", "--server", referee.address, "--token", entry.token,
                    "--", "cat"]
            process = await trio.lowlevel.open_process(argv, stderr=subprocess.DEVNULL)
            assert await referee.hub.wait_connected(entry, 30)
        with trio.fail_after(30):  # the referee has shut down: its streams ended cleanly
            return bad.returncode, await process.wait()

    assert bridge.run(main) == (2, 0)


SILENT_CHILD = 'echo "$PPID $$" > "$1"; while read -r line; do :; done'
"""Records the pipe's pid and its own, then reads every line and never answers."""


@pytest.mark.slow
def test_sigterm_closes_the_children_and_the_seat_forfeits(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    bots = [pipe("sh", "-c", SILENT_CHILD, "silent", pids), "greedy"]

    async def terminate_the_pipe() -> None:
        while not pids.exists() or not pids.read_text().strip():
            await trio.sleep(0.05)
        os.kill(int(pids.read_text().split()[0]), signal.SIGTERM)

    async def main() -> PlayedGame:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(terminate_the_pipe)
            result = await run_match(bots, spec("sigterm"), tmp_path)
            nursery.cancel_scope.cancel()  # if the pipe never started, fail below, not hang
            return result

    result = bridge.run(main)
    assert not _alive(int(pids.read_text().split()[1]))
    assert result.forfeited == (True, False)
    assert [f.kind for f in result.faults] == ["crash"]
    assert "status 143" in result.faults[0].detail


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
