"""What one crash-looping bot can make the organiser store (issue 30, part 5), in real
tournaments.

The bot (``FLOOD``, given on its command line) writes 1.5 MiB to stderr as soon as it starts,
over its ``stderr_mb = 1``, then connects and dies at its first decision: the referee forfeits
its game and starts it again at its next seat (each worker process, each slot), until it has
died more than ``MAX_RESTARTS`` times in a worker and the run stops with its games kept;
``tournament resume`` then starts it again, and so on. Each start used to add ``stderr_mb`` to
its logs, so the organiser's disk took a run's worth more at every resume.

- The defence (``log_mb = 2``): its logs of the tournament stay under 2 MiB (and a line) over
  several restarts, both slots and a resume, and the referee says where they reached it.
- The control (``log_mb`` at its largest: the per-start limit alone, as before): the same run
  and resume leave several times that.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from craits.tournament.run.botpool import MAX_RESTARTS

pytestmark = pytest.mark.slow

MIB = 1 << 20
FLOOD = """
import os, sys
sys.stderr.write(("flood " * 1000 + "\\n") * 262)   # 1.5 MiB, over stderr_mb = 1
sys.stderr.flush()
from craits_sdk import run
from craits_bots.random import RandomBot
class Dies(RandomBot):
    def decide(self, view):
        os._exit(3)
run(Dies)
"""
CAP_LINE = "[craits: this bot's logs of this tournament reached their limit (log_mb = 2)"


def play(home: Path, log_mb: int) -> tuple[list[int], dict[str, str]]:
    """Run a tournament of the flooding bot and ``greedy`` from ``home``, then resume it once;
    the bot's total log bytes after the run and after the resume, and its logs by file."""
    home.chmod(0o755)
    lines = ['name = "floods"', "table_size = 2", "deal_sets = 6", "concurrency = 1",
             "[rules]", "short_game = true", "[[bots]]", 'name = "flood"',
             f"command = {json.dumps(['python3', '-c', FLOOD])}", "[bots.limits]",
             "stderr_mb = 1", f"log_mb = {log_mb}", "[[bots]]", 'name = "greedy"']
    (home / "cup.toml").write_text("\n".join(lines) + "\n")
    db = home / "results" / "t.sqlite"
    totals = []
    for command in (["run", "cup.toml"], ["resume", "?"]):
        if command[0] == "resume":
            (tournament,) = [p.name for p in (db.parent / "logs").iterdir()]
            command[1] = tournament
        done = subprocess.run([sys.executable, "-m", "craits", "tournament", *command,
                               "--db", str(db), "--quiet"], cwd=home, capture_output=True,
                              text=True, timeout=300, env=dict(os.environ))
        assert "restarting it" in done.stderr, done.stderr  # it crash-loops in each
        if command[0] == "run":
            assert done.returncode != 0, done.stderr  # until the run stops, games kept
        logs = sorted((db.parent / "logs").rglob("flood*.stderr.log"))
        totals.append(sum(p.stat().st_size for p in logs))
    return totals, {p.name: p.read_text(errors="replace") for p in logs}


def test_a_crash_looping_bots_logs_stay_under_its_limit_across_restarts_and_a_resume(
    tmp_path: Path,
) -> None:
    totals, logs = play(tmp_path, log_mb=2)
    assert totals[0] <= 2 * MIB + 4096 and totals[1] == totals[0], totals
    text = "".join(logs.values())
    assert text.count(CAP_LINE) >= 1
    for name, log in logs.items():
        referee = [line for line in log.splitlines() if line.startswith("[craits: ")]
        assert all(line.startswith(("[craits: this bot's logs", "[craits: output limit",
                                    "[craits: the bot's processes used"))
                   for line in referee), (name, referee)


def test_control_with_the_per_start_limit_alone_every_start_and_resume_adds_to_the_logs(
    tmp_path: Path,
) -> None:
    totals, logs = play(tmp_path, log_mb=1 << 20)
    starts = MAX_RESTARTS + 1
    assert totals[0] >= starts * MIB, totals  # every start kept its stderr_mb
    assert totals[1] >= totals[0] + starts * MIB, totals  # and the resume as much again
    assert CAP_LINE[:40] not in "".join(logs.values())
