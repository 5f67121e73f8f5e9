"""No channel between a bot's processes can carry a hand: seating-major order (issue 30, part 1).

``colluding_bot.py`` plays at tables of two with one deal set, so its two processes (slots) play
the deal's two seatings, and the opponent at seat 0 of seating 1 holds the very cards its own
slot 0 held in seating 0. Slot 0 sends that hand through the machine's task count; slot 1
decodes it while it plays, and the test checks what it decoded against the opponent's dealt
hand, rebuilt from the stored game's seed and rules.

- The defence (``trust = "adversarial"``, seating-major by default): seating 0 is played, every
  process of the bot is ended, then seating 1 with a fresh one; the receiver hears only noise.
- The control: the same tournament with the old, interleaved order (the test hook
  ``schedule.UNSAFE_INTERLEAVED_ENV``): both seatings at once, and the receiver learns the hand.

The channel is the whole machine's, so every other process is noise in it: on parallel workers
these tests run ``alone`` (``tests/conftest.py``), and the defence is checked under the same
conditions as its control.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from craits.engine import Rules
from craits.engine.state import Game
from craits.tournament.plan.schedule import UNSAFE_INTERLEAVED_ENV

COLLUDER = Path(__file__).with_name("colluding_bot.py")
CUP = """
name = "collusion"
table_size = 2
deal_sets = 1
concurrency = 2
[rules]
short_game = true
[time]
move_ms = 60000
[[bots]]
name = "colluder"
command = "python3 colluding_bot.py"
dir = "colluder"
[bots.limits]
processes = 300
[[bots]]
name = "greedy"
"""


def run_cup(home: Path, interleaved: bool, workers: int = 1
            ) -> list[tuple[list[int], list[int]]]:
    """Play the cup; for each hand the receiver decoded: (decoded, the opponent's dealt hand)."""
    (home / "colluder").mkdir(parents=True)
    shutil.copy(COLLUDER, home / "colluder" / "colluding_bot.py")
    for path in (home, home / "colluder"):
        path.chmod(0o755)
    (home / "cup.toml").write_text(CUP)
    db = home / "t.sqlite"
    env = {**os.environ, UNSAFE_INTERLEAVED_ENV: "1" if interleaved else "0"}
    done = subprocess.run([sys.executable, "-m", "craits", "tournament", "run", "cup.toml",
                           "--db", str(db), "--quiet", "--workers", str(workers)], cwd=home,
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(db) as con:
        specs = {s["game_id"]: s for s in (json.loads(r) for (r,) in
                                           con.execute("SELECT spec FROM jobs"))}
    con.close()
    logs = "".join(p.read_text() for p in (db.parent / "logs").rglob("colluder*.stderr.log"))
    found = []
    for game_id, cards in re.findall(r"^DECODED (\S+) ([\d ]+)$", logs, re.MULTILINE):
        spec = specs[game_id]
        assert spec["rotation"] == 1 and spec["seats"] == ["greedy", "colluder"]
        dealt = Game.new(Rules.from_dict(spec["rules"]), 2, spec["seed"]).hands[0]
        found.append(([int(c) for c in cards.split()], sorted(int(c) for c in dealt)))
    assert len(found) == 1, logs[-2000:]
    return found


def known(decoded: list[int], dealt: list[int]) -> int:
    """How many of the opponent's cards the receiver named."""
    return len(set(decoded) & set(dealt))


@pytest.mark.slow
@pytest.mark.alone
def test_played_seating_major_the_receiving_process_learns_nothing(tmp_path: Path) -> None:
    [(decoded, dealt)] = run_cup(tmp_path, interleaved=False)
    assert known(decoded, dealt) <= 4, (decoded, dealt)  # chance: about one card in eight


@pytest.mark.slow
@pytest.mark.alone
def test_on_two_worker_processes_the_receiving_process_learns_nothing(tmp_path: Path) -> None:
    """Each worker has processes of the bot: the one whose slot 0 sent must end it before the
    other starts seating 1, though it plays nothing of seating 1 itself (``PhaseGate``)."""
    [(decoded, dealt)] = run_cup(tmp_path, interleaved=False, workers=2)
    assert known(decoded, dealt) <= 4, (decoded, dealt)


@pytest.mark.slow
@pytest.mark.alone
def test_control_played_interleaved_the_receiving_process_learns_the_opponents_hand(
    tmp_path: Path,
) -> None:
    [(decoded, dealt)] = run_cup(tmp_path, interleaved=True)
    assert known(decoded, dealt) >= 6, (decoded, dealt)


def test_the_store_hands_out_no_seating_before_the_one_before_it_is_recorded(
    tmp_path: Path,
) -> None:
    """The claim order behind seating-major play, with a resume in the middle: a job of seating
    1 is claimed only once no job of seating 0 is pending or running."""
    from craits.tournament.plan.config import config_from_dict
    from craits.tournament.store.database import Store

    config = config_from_dict({"table_size": 2, "deal_sets": 3, "bots": [
        {"name": "a", "command": "python3 a.py"}, {"name": "b"}, {"name": "c"}]})
    with Store.open(tmp_path / "t.sqlite") as store:
        tid = store.create_tournament(config)
        first = [store.claim_next(tid) for _ in range(9)]
        assert all(job is not None and job.rotation == 0 for job in first)
        assert store.claim_next(tid) is None  # seating 0 is being played: nothing of 1 yet
        assert store.reset_running(tid) == 9  # a resumed run starts seating 0 again
        claimed = [store.claim_next(tid) for _ in range(9)]
        assert {job.game_index for job in claimed if job} == {j.game_index for j in first if j}
        with store._transaction() as db:  # recorded, as the runner would
            db.execute("UPDATE jobs SET status='done' WHERE tournament_id=? AND rotation=0",
                       (tid,))
        second = store.claim_next(tid)
        assert second is not None and second.rotation == 1


def test_with_no_sandboxed_bot_the_order_is_the_schedules(tmp_path: Path) -> None:
    from craits.tournament.plan.config import config_from_dict
    from craits.tournament.store.database import Store

    config = config_from_dict({"table_size": 2, "deal_sets": 2, "bots": [
        {"name": "a"}, {"name": "b"}]})
    with Store.open(tmp_path / "t.sqlite") as store:
        tid = store.create_tournament(config)
        claimed = [store.claim_next(tid) for _ in range(4)]
        assert [job.game_index for job in claimed if job] == [0, 1, 2, 3]
