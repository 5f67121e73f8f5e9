"""Hostile bots in a real tournament: every attack contained, the contest undisturbed.

Three real tournaments, each a ``craits tournament run`` process with bots as real processes
dialling a real referee:
- *adversarial* (the default): two command bots run ``hostile_bot.py``, which tries every
  attack once per process before playing exactly like ``random``;
- *baseline*: the same tournament with plain ``random`` bots in their place;
- *trusted*: the hostile bots again, with ``trust = "trusted"`` (no sandbox, one process per
  bot): the control that shows each attack really works where nothing stops it, so that every
  test below can fail.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from craits.hosting import botgroup, sandbox

from .outcomes import game_outcomes

pytestmark = pytest.mark.slow  # real tournaments of sandboxed attackers

HOSTILE = Path(__file__).with_name("hostile_bot.py")
ATTACKS = ("read_database", "sibling_token", "organiser_env", "network", "signal_sibling",
           "fork_bomb", "memory", "fill_disk")
"""The attacks a bot reports itself: blocked in a sandbox, LEAKED without one."""
LIMITS = """
[bots.limits]
memory_mb = 1024
processes = 48
tmp_mb = 16
stderr_mb = 1
"""
STDERR_LIMIT = 1 << 20

@dataclass(frozen=True)
class Run:
    """One finished tournament run: its directory, database, process status and bot logs."""

    home: Path
    db: Path
    status: int
    err: str
    marker: str
    groups_left: set[Path]
    """Bot control groups made during the run and still there after it."""

    def logs(self, bot: str) -> dict[str, str]:
        """Every log file of ``bot`` (one per process slot) -> its text."""
        folder = next((self.db.parent / "logs").iterdir())
        return {p.name: p.read_text(errors="replace")
                for p in sorted(folder.glob(f"{bot}*.stderr.log"))}

    def attack_lines(self, attack: str) -> list[str]:
        lines = []
        for bot in ("attacker", "victim"):
            for text in self.logs(bot).values():
                lines += re.findall(rf"^ATTACK {attack}: (.*)$", text, re.MULTILINE)
        return lines

    def games(self) -> list[tuple[str, str, str]]:
        """(seats, totals, places) of every recorded game, in schedule order."""
        return game_outcomes(self.db)

    def deal_sets_by_game_id(self) -> dict[str, tuple[int, int]]:
        with sqlite3.connect(self.db) as con:
            specs = [json.loads(s) for (s,) in con.execute("SELECT spec FROM jobs")]
        con.close()
        return {s["game_id"]: (s["meeting_index"], s["deal_set"]) for s in specs}


def _cup(trust: str, hostile: bool) -> str:
    plain = "python3 -m craits_sdk run craits_bots.random:RandomBot"
    attacker = "python3 hostile.py" if hostile else plain
    victim = "python3 victim.py" if hostile else attacker
    return f"""
name = "hostile"
seed = 11
table_size = 3
deal_sets = 1
concurrency = 3
trust = "{trust}"
[rules]
short_game = true
[time]
move_ms = 20000
[[bots]]
name = "victim"
command = "{victim}"
dir = "."
{LIMITS if trust == "adversarial" else ""}
[[bots]]
name = "greedy"
[[bots]]
name = "attacker"
command = "{attacker}"
dir = "attacker"
{LIMITS if trust == "adversarial" else ""}
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def play(home: Path, trust: str, hostile: bool, marker: str) -> Run:
    """Lay out a tournament directory (the victim in it, the attacker in its own directory),
    and run it to the end."""
    (home / "attacker").mkdir(parents=True)
    db = home / "craits-results" / "tournaments.sqlite"
    port = _free_port()
    for target, other in ((home / "attacker" / "hostile.py", home), (home / "victim.py",
                                                                      home / "attacker")):
        text = HOSTILE.read_text().replace("@DATABASE@", str(db)).replace("@PORT@", str(port))
        target.write_text(text.replace("@OTHER_DIR@", str(other))
                          .replace('CHILD_MARK = "2999"', f'CHILD_MARK = "{marker}"'))
    (home / "cup.toml").write_text(_cup(trust, hostile))
    for path in (home, home / "attacker"):
        path.chmod(0o755)
    before = bot_groups()
    with subprocess.Popen(
        [sys.executable, "-m", "craits", "tournament", "run", "cup.toml", "--db", str(db),
         "--port", str(port), "--quiet"],
        cwd=home, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "ORGANISER_SECRET": "hunter2"},
    ) as proc:
        _, err = proc.communicate(timeout=300)
    # The run's own groups (named for the process that made them: the run plays in one
    # process), not another run's on the same machine made meanwhile.
    mine = f"bot-{proc.pid}-"
    return Run(home, db, proc.returncode, err, marker,
               {g for g in bot_groups() - before if g.name.startswith(mine)})


def bot_groups() -> set[Path]:
    """Every bot control group on this machine."""
    found = botgroup.hierarchies()
    assert not isinstance(found, str), found
    return {group for h in found for group in h.parent.glob("bot-*")}


def leftover_children(marker: str) -> list[int]:
    """Host processes ``sleep MARKER`` (a child a bot left behind)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if argv[:2] == [b"sleep", marker.encode()]:
                found.append(int(entry.name))
    return found


@pytest.fixture(scope="module")
def adversarial(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return play(tmp_path_factory.mktemp("adversarial"), "adversarial", True, "2999")


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return play(tmp_path_factory.mktemp("baseline"), "adversarial", False, "2997")


@pytest.fixture(scope="module")
def trusted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Run, list[int]]]:
    """The control run, and the children its bots left behind (ended after the module)."""
    run = play(tmp_path_factory.mktemp("trusted"), "trusted", True, "2998")
    children = leftover_children("2998")
    yield run, children
    for pid in children:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def test_the_tournament_with_attackers_finishes_exactly_like_one_without(
    adversarial: Run, baseline: Run
) -> None:
    assert adversarial.status == 0, adversarial.err
    assert baseline.status == 0, baseline.err
    games = adversarial.games()
    assert len(games) == 3
    assert games == baseline.games()


@pytest.mark.parametrize("attack", ATTACKS)
def test_every_attack_is_contained_in_the_sandbox(adversarial: Run, attack: str) -> None:
    outcomes = adversarial.attack_lines(attack)
    assert len(outcomes) >= 2, f"every hostile process reports {attack}"
    assert all(o.startswith("blocked") for o in outcomes), outcomes


@pytest.mark.parametrize("attack", ATTACKS)
def test_every_attack_works_without_the_sandbox(
    trusted: tuple[Run, list[int]], attack: str
) -> None:
    """The control: trusted bots are not contained, so each attack's test above can fail."""
    run, _ = trusted
    assert run.status == 0, run.err
    assert any(o.startswith("LEAKED") for o in run.attack_lines(attack)), run.attack_lines(attack)


def test_a_flood_of_output_keeps_only_the_limit(adversarial: Run) -> None:
    logs = adversarial.logs("victim")
    assert logs
    for text in logs.values():
        assert STDERR_LIMIT <= len(text.encode()) <= STDERR_LIMIT + 200
        kept, _, after = text.partition("\n[craits: output limit reached; the rest dropped]\n")
        assert len(kept.encode()) == STDERR_LIMIT
        assert re.fullmatch(r"(\[craits: [^\n]*\]\n)*", after), after


def test_every_sandboxed_process_is_counted_and_its_groups_removed(adversarial: Run) -> None:
    for bot in ("attacker", "victim"):
        for text in adversarial.logs(bot).values():
            used = re.findall(r"^\[craits: the bot's processes used ([\d.]+) CPU seconds\]$",
                              text, re.MULTILINE)
            assert len(used) == 1 and float(used[0]) > 0, text[-300:]
    assert adversarial.groups_left == set(), {
        str(g): (g / "cgroup.procs").read_text() for g in adversarial.groups_left}


def test_no_child_outlives_its_sandbox(adversarial: Run, trusted: tuple[Run, list[int]]) -> None:
    assert adversarial.status == 0
    assert leftover_children(adversarial.marker) == []
    assert trusted[1], "the control's bots leave their children running"


def test_no_process_ever_sees_two_seatings_of_one_deal(
    adversarial: Run, trusted: tuple[Run, list[int]]
) -> None:
    """The duplicate-deal memory attack: a process that played one seating of a deal set knows
    from its own hand there what an opponent holds in another seating."""

    def repeats(run: Run) -> int:
        deal_set = run.deal_sets_by_game_id()
        seen: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for text in run.logs("attacker").values():
            for nonce, game_id in re.findall(r"^GAME (\w+) (\S+)$", text, re.MULTILINE):
                seen[nonce].append(deal_set[game_id])
        assert sum(map(len, seen.values())) == 3, "the attacker reports each of its games"
        return sum(len(keys) - len(set(keys)) for keys in seen.values())

    assert repeats(adversarial) == 0
    assert repeats(trusted[0]) > 0


def test_a_private_bot_directory_is_refused_with_what_to_do(tmp_path: Path) -> None:
    if not sandbox.bot_uid_used():
        pytest.skip("bots have user ids of their own only when the referee runs as root")
    home = tmp_path / "private"
    home.mkdir(mode=0o700)
    shutil.copy(HOSTILE, home / "victim.py")
    (home / "cup.toml").write_text(_cup("adversarial", False).replace('dir = "attacker"', ""))
    proc = subprocess.run([sys.executable, "-m", "craits", "tournament", "run", "cup.toml",
                           "--db", str(tmp_path / "t.sqlite")],
                          cwd=home, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.startswith("craits: error: bot 'victim': its directory")
    assert "not readable by other users" in proc.stderr and "chmod a+rX" in proc.stderr
