"""A sandboxed bot flooding the referee's Unix socket beside an innocent sandboxed bot, in real
``craits tournament run`` processes (issue 30, part 3).

``flooding_bot.py`` plays like ``random`` while, from its Welcome on, it opens stream after stream
on the socket it was given: streams that never say Hello, Hellos with a wrong token, bursts of
messages before any Hello. ``patient_bot.py``, the innocent, takes a while between opening its
stream and saying Hello and does not retry before its Welcome (as a contestant's own client
might); once welcomed it plays like ``random``. The flooder is first in the tournament file, so
it is launched (and flooding) before the innocent says Hello. One worker: every bot's processes
then dial one referee (each worker process has a referee, and sockets, of its own).

- *defended*: every sandboxed bot has a socket of its own (``Referee.socket_for``): the flood
  counts against the flooder alone, and every game comes out identical to *baseline*, the same
  tournament with plain ``random`` (sandboxed too) in the flooder's place.
- *control*: every bot on the one shared socket, as before (the test hook
  ``_CRAITS_UNSAFE_SHARED_BOT_SOCKET=1``): the flood ends the innocent's stream before its Hello,
  and it loses the games it would have played (here the run cannot even start: the innocent
  exits before its first Welcome, and no tournament is kept).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from craits.referee.server import UNSAFE_SHARED_SOCKET_ENV

from .outcomes import game_outcomes

pytestmark = pytest.mark.slow  # real tournaments of sandboxed bots

HERE = Path(__file__).parent
PLAIN = "python3 -m craits_sdk run craits_bots.random:RandomBot"


@dataclass(frozen=True)
class Run:
    db: Path
    status: int
    err: str

    def log(self, bot: str) -> str:
        """Every log file of ``bot`` together."""
        return "".join(p.read_text(errors="replace")
                       for p in sorted((self.db.parent / "logs").rglob(f"{bot}*.stderr.log")))

    def games(self) -> list[tuple[str, str, str]]:
        """(seats, totals, places) of every recorded game, in schedule order."""
        return game_outcomes(self.db)


def play(home: Path, flooder: bool, shared_socket: bool = False) -> Run:
    """Run the tournament from ``home`` (the bots beside its file) to its end."""
    for script in ("flooding_bot.py", "patient_bot.py"):
        shutil.copy(HERE / script, home / script)
    home.chmod(0o755)
    (home / "cup.toml").write_text(f"""
name = "flood"
seed = 5
table_size = 3
deal_sets = 2
concurrency = 2
[rules]
short_game = true
[time]
move_ms = 20000
[[bots]]
name = "flooder"
command = "{'python3 flooding_bot.py' if flooder else PLAIN}"
dir = "."
[[bots]]
name = "innocent"
command = "python3 patient_bot.py"
dir = "."
[[bots]]
name = "greedy"
""")
    db = home / "results" / "t.sqlite"
    env = {k: v for k, v in os.environ.items() if k != UNSAFE_SHARED_SOCKET_ENV}
    if shared_socket:
        env[UNSAFE_SHARED_SOCKET_ENV] = "1"
    done = subprocess.run([sys.executable, "-m", "craits", "tournament", "run", "cup.toml",
                           "--db", str(db), "--workers", "1", "--quiet"], cwd=home,
                          capture_output=True, text=True, timeout=300, env=env)
    return Run(db, done.returncode, done.stderr)


def opened(run: Run) -> int:
    """The most streams one process of the flooder said it had opened."""
    return max(map(int, re.findall(r"^FLOOD opened (\d+) ", run.log("flooder"), re.M)),
               default=0)


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return play(tmp_path_factory.mktemp("baseline"), flooder=False)


def test_a_bot_flooding_its_own_socket_leaves_the_innocent_bots_games_as_without_it(
    tmp_path: Path, baseline: Run
) -> None:
    defended = play(tmp_path, flooder=True)
    assert baseline.status == 0, baseline.err
    assert defended.status == 0, defended.err
    assert opened(defended) >= 256, "the attack ran, well past every cap (64 shared, 16 own)"
    assert "ended before Welcome" not in defended.log("innocent")
    games = defended.games()
    assert len(games) == 6
    assert games == baseline.games()


def test_control_on_one_shared_socket_the_flood_costs_the_innocent_bot(
    tmp_path: Path, baseline: Run
) -> None:
    control = play(tmp_path, flooder=True, shared_socket=True)
    assert opened(control) >= 128
    assert "INNOCENT ended before Welcome" in control.log("innocent"), control.log("innocent")
    assert control.status != 0 or control.games() != baseline.games(), control.err
