"""Sandboxed bots that think for a while are not killed for it (issue 33, part 1).

``bwrap --die-with-parent`` gives a sandbox the kernel's parent-death signal, which follows the
*thread* that forked it. Bots used to be forked from one of trio's worker threads, which trio
retires after 10 s idle, and every sandboxed bot alive then was SIGKILLed mid-game. They are now
forked by the event loop's own thread (``craits.hosting.spawn``).

- a control: the same sandbox forked from a thread that then ends is killed by SIGKILL (the
  mechanism is real, so the tests below can fail);
- a sandbox started by ``spawn`` survives every other thread's end;
- a real adversarial tournament on 2 workers, whose sandboxed bots pause 15 s once a game (the
  one at seat 0), longer than any thread-cache timeout, finishes with no forfeit.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import trio

from craits.hosting import spawn

pytestmark = pytest.mark.slow  # sandboxed bots, one in a real tournament

IDLE_BOT = Path(__file__).with_name("idle_bot.py")
SANDBOX = ["bwrap", "--die-with-parent", "--ro-bind", "/", "/", "--", "sleep", "60"]
SETTLE_S = 0.5
"""Long enough for a parent-death signal to be delivered after a thread has ended."""


def test_control_a_sandbox_forked_by_a_thread_that_ends_is_killed() -> None:
    started: list[subprocess.Popen[bytes]] = []

    def fork_then_retire() -> None:
        started.append(subprocess.Popen(SANDBOX))
        time.sleep(SETTLE_S)  # as a cached thread idles: bwrap has asked for the signal by then

    forker = threading.Thread(target=fork_then_retire)
    forker.start()
    forker.join()
    try:
        assert started[0].wait(timeout=10) == -signal.SIGKILL
    finally:
        started[0].kill()


def test_a_sandbox_started_by_the_loop_outlives_every_other_thread() -> None:
    async def main() -> int | None:
        child = spawn.start(SANDBOX, env=dict(os.environ))
        try:
            ended = threading.Thread(target=time.sleep, args=(0.01,))
            ended.start()
            ended.join()
            await trio.to_thread.run_sync(time.sleep, 0.01)
            await trio.sleep(SETTLE_S)
            alive = child.returncode
        finally:
            os.killpg(child.pid, signal.SIGKILL)
            assert await child.wait() == -signal.SIGKILL
        return alive

    assert trio.run(main) is None


def test_two_tasks_can_wait_for_one_child() -> None:
    """The launcher's watcher and its stopper both wait for a bot's exit."""
    async def main() -> list[int]:
        child = spawn.start(["sh", "-c", "exit 3"], env=dict(os.environ))
        statuses: list[int] = []

        async def wait() -> None:
            statuses.append(await child.wait())

        async with trio.open_nursery() as nursery:
            nursery.start_soon(wait)
            nursery.start_soon(wait)
        return statuses

    assert trio.run(main) == [3, 3]


CUP = """
name = "idle"
seed = 5
table_size = 2
deal_sets = 2
concurrency = 2
trust = "adversarial"
[rules]
short_game = true
[time]
move_ms = 60000
[[bots]]
name = "thinker"
command = "python3 idle_bot.py"
dir = "."
[[bots]]
name = "ponderer"
command = "python3 idle_bot.py"
dir = "."
"""


def test_an_adversarial_tournament_of_idle_sandboxed_bots_has_no_forfeit(
    tmp_path: Path,
) -> None:
    (tmp_path / "idle_bot.py").write_text(IDLE_BOT.read_text())
    (tmp_path / "cup.toml").write_text(CUP)
    result = subprocess.run(
        [sys.executable, "-m", "craits", "tournament", "run", "cup.toml", "--workers", "2",
         "--db", str(tmp_path / "results.sqlite"), "--json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
        env={**os.environ, "IDLE_PAUSE_S": "15"},
    )
    assert result.returncode == 0, result.stderr
    standings = json.loads(result.stdout)
    assert standings["games"] == 4
    assert [(row["forfeits"], row["strikes"]) for row in standings["rows"]] == [(0, 0), (0, 0)]
