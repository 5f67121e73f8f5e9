"""A bot's whole process tree held to one share: CPU bandwidth, memory, processes and CPU time
(``craits/hosting/botgroup.py``), with real control groups and real processes.

A contestant's bot can multiply any per-process limit by forking; each test below forks, and
checks that the tree, not the process, is what the limit holds."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from craits.hosting import botgroup, sandbox
from craits.hosting.botgroup import BotGroup, GroupLimits, Hierarchy, find_hierarchies
from craits.hosting.launcher import launch
from craits.referee.hub import BotHub
from tests.procfs import STATE, stat_of

V1_MOUNTS = """\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""
V1_OWN = "12:pids:/\n4:memory:/job/7\n2:cpu,cpuacct:/\n0::/\n"


def test_version_1_hierarchies_are_found_per_controller_under_the_own_group() -> None:
    found = {h.parent: h.controllers for h in find_hierarchies(V1_MOUNTS, V1_OWN)}
    assert found == {
        Path("/sys/fs/cgroup/cpu,cpuacct/craits"): {"cpu", "cpuacct"},
        Path("/sys/fs/cgroup/memory/job/7/craits"): {"memory"},
        Path("/sys/fs/cgroup/pids/craits"): {"pids"},
    }
    assert not any(h.unified for h in find_hierarchies(V1_MOUNTS, V1_OWN))


def test_version_2_is_used_when_the_controllers_are_not_in_version_1(tmp_path: Path) -> None:
    (tmp_path / "user" / "me").mkdir(parents=True)
    (tmp_path / "user" / "me" / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    mounts = f"30 1 0:26 / {tmp_path} rw - cgroup2 cgroup2 rw\n"
    (found,) = find_hierarchies(mounts, "0::/user/me\n")
    assert found == Hierarchy(tmp_path / "user/me/craits", frozenset({"cpu", "memory", "pids"}),
                              True)


def test_version_2_groups_get_their_limits_written(tmp_path: Path) -> None:
    """On a version 2 tree the kernel makes the files; here plain files stand in for them."""
    hierarchy = Hierarchy(tmp_path, frozenset({"cpu", "memory", "pids"}), True)
    group = BotGroup([hierarchy], GroupLimits(cpu_percent=150, memory_mb=512, processes=32))
    (path,) = group.dirs.values()
    assert (path / "cpu.max").read_text() == "150000 100000"
    assert (path / "memory.max").read_text() == str(512 << 20)
    assert (path / "pids.max").read_text() == "32"
    (path / "cpu.stat").write_text("usage_usec 2500000\nuser_usec 2000000\n")
    assert group.cpu_s() == 2.5
    assert group.join_argv(["bot"])[-2:] == ["--", "bot"]


@pytest.fixture
def usable() -> tuple[Hierarchy, ...]:
    """This machine's hierarchies (CI runs as root on version 1: ``.ci/run`` checks it)."""
    found = botgroup.hierarchies()
    assert not isinstance(found, str), found
    return found


@pytest.fixture
def group_of(usable: tuple[Hierarchy, ...]) -> Iterator[list[BotGroup]]:
    """Groups a test makes, removed after it."""
    made: list[BotGroup] = []
    yield made
    for group in made:
        for _ in range(40):
            if group.remove():
                break
            time.sleep(0.05)


def run_in(
    made: list[BotGroup], limits: GroupLimits, code: str
) -> subprocess.CompletedProcess[str]:
    group = BotGroup.make(limits)
    assert group is not None
    made.append(group)
    return subprocess.run(group.join_argv([sys.executable, "-c", code]), capture_output=True,
                          text=True, timeout=120)


BUSY_CHILDREN = """
import os, time
end = time.monotonic() + 1.5
kids = []
for _ in range(4):
    pid = os.fork()
    if pid == 0:
        while time.monotonic() < end:
            pass
        os._exit(0)
    kids.append(pid)
for pid in kids:
    os.waitpid(pid, 0)
"""


@pytest.mark.slow
def test_busy_children_together_get_the_trees_share_of_one_core(
    group_of: list[BotGroup],
) -> None:
    start = time.monotonic()
    done = run_in(group_of, GroupLimits(cpu_percent=20, memory_mb=1024, processes=64),
                  BUSY_CHILDREN)
    wall = time.monotonic() - start
    assert done.returncode == 0, done.stderr
    (group,) = group_of
    quota = {h: (p / ("cpu.max" if h.unified else "cpu.cfs_quota_us")).read_text().split()[0]
             for h, p in group.dirs.items() if "cpu" in h.controllers}
    assert list(quota.values()) == ["20000"]
    used = group.cpu_s()
    # Four busy children would use up to four cores' worth; the quota allows 0.2 of one.
    assert 0 < used <= 0.2 * wall * 1.3 + 0.05, (used, wall)


FILLERS = """
import os, sys
kids = []
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        block = b"1" * (150 << 20)
        os._exit(0 if len(block) else 1)
    kids.append(pid)
sys.exit(sum(os.WIFSIGNALED(os.waitpid(pid, 0)[1]) for pid in kids))
"""


@pytest.mark.slow
def test_children_over_the_trees_memory_are_killed(group_of: list[BotGroup]) -> None:
    """Each 150 MB child is far under any per-process limit; together they are over 256 MB."""
    done = run_in(group_of, GroupLimits(cpu_percent=100, memory_mb=256, processes=64), FILLERS)
    assert done.returncode != 0, "no child was killed"


FORKS = """
import os, time
kids = []
try:
    while len(kids) < 60:
        pid = os.fork()
        if pid == 0:
            time.sleep(10)
            os._exit(0)
        kids.append(pid)
finally:
    for pid in kids:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    print(len(kids))
"""


def test_the_tree_gets_no_more_processes_than_its_limit(group_of: list[BotGroup]) -> None:
    done = run_in(group_of, GroupLimits(cpu_percent=100, memory_mb=1024, processes=16), FORKS)
    assert done.returncode != 0, "the fork beyond the limit was refused"
    assert 0 < int(done.stdout) < 16


SPENDER = """
import os, time
for _ in range(3):
    if os.fork() == 0:
        start = time.process_time()
        while time.process_time() - start < 0.8:
            pass
        os._exit(0)
time.sleep(60)
"""


@pytest.mark.slow
def test_a_bot_whose_tree_spends_its_cpu_seconds_is_ended_with_the_reason(
    tmp_path: Path, usable: tuple[Hierarchy, ...],
) -> None:
    """Three children of 0.8 CPU seconds each: every process is under ``cpu_s = 1`` (its own
    RLIMIT_CPU), the tree is not."""
    home = tmp_path / "bot"
    home.mkdir()
    home.chmod(0o755)
    socket = tmp_path / "referee.sock"
    socket.touch()
    limits = sandbox.SandboxLimits(cpu_s=1, cpu_percent=400)
    plan = sandbox.plan_for(home, socket, limits)
    hub = BotHub()

    async def main() -> str | None:
        bot = await launch(hub, "unused", f"python3 -c '{SPENDER}'", "spender", tmp_path,
                           plan=plan)
        with trio.fail_after(50):
            await bot.watch(hub)
        assert bot.group is not None and bot.group.dirs
        assert not any(path.exists() for path in bot.group.dirs.values())
        return bot.entry.dead_reason

    reason = trio.run(main)
    assert reason is not None and "over its limit (cpu_s = 1)" in reason, reason
    log = (tmp_path / "spender.stderr.log").read_text()
    assert "[craits: the bot's processes used" in log


def test_a_machine_without_groups_gets_a_note_only_where_bots_are_isolated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from craits.tournament.plan.config import config_from_dict
    from craits.tournament.run.botpool import isolation_notes

    def cup(trust: str) -> dict[str, object]:
        return {"bots": [{"name": "a", "command": "python3 a.py"}, {"name": "b"}],
                "table_size": 2, "trust": trust}

    monkeypatch.setattr(botgroup, "problem", lambda: "no cgroup hierarchy here")
    assert isolation_notes(config_from_dict(cup("adversarial"))) == ["no cgroup hierarchy here"]
    assert isolation_notes(config_from_dict(cup("trusted"))) == []
    monkeypatch.setattr(botgroup, "problem", lambda: None)
    assert isolation_notes(config_from_dict(cup("adversarial"))) == []


def test_cpu_percent_is_a_limit_of_its_own_and_range_checked() -> None:
    from craits.tournament.plan.config import ConfigError, config_from_dict

    def cup(percent: int) -> dict[str, object]:
        return {"bots": [{"name": "a", "command": "python3 a.py",
                          "limits": {"cpu_percent": percent}}, {"name": "b"}],
                "table_size": 2}

    assert config_from_dict(cup(250)).bots[0].limits.cpu_percent == 250
    with pytest.raises(ConfigError, match="cpu_percent"):
        config_from_dict(cup(1))


KILLED_REFEREE = """
import subprocess, sys
from craits.hosting.botgroup import BotGroup, GroupLimits
group = BotGroup.make(GroupLimits(cpu_percent=50, memory_mb=256, processes=16))
bot = subprocess.Popen(group.join_argv(["sleep", "300"]), start_new_session=True)
print(bot.pid, *group.dirs.values(), flush=True)
sys.stdin.read()
"""


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (not ended, not a zombie awaiting its reaper)."""
    try:
        return stat_of(pid)[STATE] not in ("Z", "X")
    except (OSError, IndexError):
        return False


def test_a_bot_left_running_by_a_killed_referee_is_ended_by_the_next_sweep(
    usable: tuple[Hierarchy, ...],
) -> None:
    """A referee killed outright (kill -9) leaves a bot it was starting outside bubblewrap's
    parent-death tie, running in the referee's groups: the next referee's sweep ends it and
    removes the groups. Control: the sweep as it was (the groups only) leaves both."""
    referee = subprocess.Popen([sys.executable, "-c", KILLED_REFEREE], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    assert referee.stdout is not None
    pid, *paths = referee.stdout.readline().split()
    bot, dirs = int(pid), [Path(p) for p in paths]
    try:
        until = time.monotonic() + 10
        while not all(pid in (d / "cgroup.procs").read_text().split() for d in dirs):
            assert time.monotonic() < until, "the bot never joined all its groups"
            time.sleep(0.01)
        referee.kill()
        referee.wait()
        for hierarchy in usable:
            botgroup.sweep(hierarchy.parent, end_processes=False)
        assert running(bot) and all(d.exists() for d in dirs)  # the control
        for hierarchy in usable:
            botgroup.sweep(hierarchy.parent)
        assert not running(bot)
        assert not any(d.exists() for d in dirs)
    finally:
        referee.kill()
        with contextlib.suppress(OSError):
            os.kill(bot, signal.SIGKILL)
