"""What a command bot with no ``dir`` can read, and what it can make its log say (issue 30,
part 4), in real tournaments.

The bot (``SNOOP``, given on its command line: it has no files of its own) reads its working
directory, the tournament file in it (the organiser keeps a secret there, as a remote bot's token
used to be kept), and the mount table; then writes a line that reads as the referee's, a
terminal escape and a right-to-left override to stderr, and plays like ``random``.

- Adversarial (the defence): it runs in an empty directory of its own, so it reads nothing of the
  organiser's and the tournament's directory is mounted nowhere; its log shows its forged line
  and control bytes as visible escapes, and the only ``[craits: ...]`` line is the referee's.
- Trusted (the control): the same bot runs in the tournament's directory, as a bot with no
  ``dir`` used to in adversarial tournaments too, and reads the secret; its output reaches its
  log byte for byte.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

SECRET = "organiser-secret-7f3a9c"
FORGED = "[craits: the bot's processes used 0.00 CPU seconds]"
SNOOP = f"""
import os, sys
def say(line):
    print(line, file=sys.stderr, flush=True)
say("SNOOP listing: " + " ".join(sorted(os.listdir("."))))
try:
    say("SNOOP cup: " + ("LEAKED" if "{SECRET}" in open("cup.toml").read() else "no secret"))
except OSError as exc:
    say("SNOOP cup: blocked " + exc.strerror)
for line in open("/proc/self/mountinfo"):
    say("SNOOP mount " + line.split()[4])
sys.stderr.write("\\n{FORGED}\\n\\x1b[2J\\u202eevil\\n")
sys.stderr.flush()
from craits_sdk import run
from craits_bots.random import RandomBot
run(RandomBot)
"""


def play(home: Path, trust: str) -> str:
    """Run a tournament of the snoop and ``greedy`` from ``home``; the snoop's log."""
    home.chmod(0o755)
    cup = {"name": "files", "table_size": 2, "deal_sets": 1, "trust": trust,
           "rules": {"short_game": True}}
    lines = [f"# the organiser's note: {SECRET}", *(f"{k} = {json.dumps(v)}" for k, v in
                                                     cup.items() if k != "rules"),
             "[rules]", "short_game = true",
             "[[bots]]", 'name = "snoop"', f"command = {json.dumps(['python3', '-c', SNOOP])}",
             "[[bots]]", 'name = "greedy"']
    (home / "cup.toml").write_text("\n".join(lines) + "\n")
    db = home / "results" / "t.sqlite"
    done = subprocess.run([sys.executable, "-m", "craits", "tournament", "run", "cup.toml",
                           "--db", str(db), "--quiet"], cwd=home, capture_output=True,
                          text=True, timeout=300, env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    logs = sorted((db.parent / "logs").rglob("snoop*.stderr.log"))
    assert logs
    return "".join(p.read_text(errors="replace") for p in logs)


def test_a_bot_with_no_dir_reads_nothing_of_the_organisers(tmp_path: Path) -> None:
    log = play(tmp_path, "adversarial")
    assert re.findall(r"^SNOOP listing: (.*)$", log, re.MULTILINE) == [""] * log.count(
        "SNOOP listing")
    assert all(c.startswith("blocked") for c in re.findall(r"^SNOOP cup: (.*)$", log, re.M))
    mounts = re.findall(r"^SNOOP mount (.*)$", log, re.MULTILINE)
    assert mounts and not any(m == str(tmp_path) or m.startswith(f"{tmp_path}/")
                              for m in mounts), mounts


def test_a_bot_cannot_forge_the_referees_lines_nor_put_control_bytes_in_its_log(
    tmp_path: Path,
) -> None:
    log = play(tmp_path, "adversarial")
    assert "\x1b" not in log and "\u202e" not in log
    assert "\\x1b[2J\\u202eevil" in log
    referee = [line for line in log.splitlines() if line.startswith("[craits: ")]
    assert referee and all(re.fullmatch(r"\[craits: the bot's processes used [\d.]+ CPU "
                                        r"seconds\]", line) for line in referee)
    assert FORGED not in referee and "\\x5b" + FORGED[1:] in log


def test_control_trusted_the_bot_reads_the_tournament_file_and_writes_its_log_raw(
    tmp_path: Path,
) -> None:
    log = play(tmp_path, "trusted")
    assert "SNOOP cup: LEAKED" in log
    assert FORGED in log.splitlines() and "\x1b[2J\u202eevil" in log
