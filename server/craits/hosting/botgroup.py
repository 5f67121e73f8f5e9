"""Control groups: a sandboxed bot's whole process tree held to its share of CPU, memory and
processes, and its CPU time counted.

The sandbox's ``prlimit`` limits are per process, which a bot can multiply by forking: four
busy children take every core of the machine (slowing every opponent's move, whose clock is wall
time, while the bot thinks four times as much), and 64 children of 2 GB each are 128 GB. A
control group holds every process a bot will ever start, so the kernel applies one limit to all
of them together:

- ``cpu_percent``: the tree's CPU bandwidth, in percent of one core (the CFS quota; as in
  systemd's ``CPUQuota=``), so no bot out-computes another by starting workers;
- ``memory_mb``: the tree's memory (a process over it is killed by the kernel's OOM killer);
- ``processes``: the tree's processes and threads (``pids.max``; unlike ``RLIMIT_NPROC`` it does
  not need a user id of the bot's own);
- and its CPU time, which the referee reads to end a bot whose tree spent more than ``cpu_s``.

The bot joins its groups before bubblewrap runs (``join_argv``), so no process of it is ever
outside them; inside the sandbox ``/sys`` is not mounted and the cgroup namespace is its own, so
it cannot move itself out. Groups need a writable cgroup hierarchy (the referee as root, or a
delegated subtree): ``problem()`` says why none is usable, and a tournament then runs with the
per-process limits alone and says so. Both cgroup versions are handled: version 1 (a hierarchy
per controller, as on this project's CI machines) and version 2 (one unified tree).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import itertools
import os
import signal
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

PERIOD_US: Final = 100_000
"""The CFS period the quota is a share of (the kernel's default)."""

PARENT: Final = "craits"
"""The directory, in each hierarchy, under which every bot's group is made."""

V1_CONTROLLERS: Final = ("cpu", "cpuacct", "memory", "pids")
V2_CONTROLLERS: Final = ("cpu", "memory", "pids")
JOIN_FAILED: Final = 125
"""Exit status of a bot process that could not join its groups (it never started)."""

_JOIN_SCRIPT: Final = ('for f; do [ "$f" = -- ] && break; echo $$ > "$f" || exit '
                       f'{JOIN_FAILED}; shift; done; shift; exec "$@"')
"""Write this shell's pid into each file given before ``--``, then become the command after it.
The paths are arguments, never part of the script, so no path can inject anything."""


@dataclass(frozen=True, slots=True)
class Hierarchy:
    """Where this referee makes its groups in one mounted cgroup hierarchy."""

    parent: Path
    """``<mount>/<the referee's own group>/craits``."""
    controllers: frozenset[str]
    """Of the controllers this project uses, those this hierarchy holds."""
    unified: bool
    """cgroup version 2."""


@dataclass(frozen=True, slots=True)
class GroupLimits:
    """What a bot's groups enforce (from its ``[bots.limits]``)."""

    cpu_percent: int
    memory_mb: int
    processes: int


@dataclass(frozen=True, slots=True)
class Account:
    """A bot's own group on this machine for a whole run: every process of the bot (each slot,
    each worker's) gets its group *under* it, so the kernel holds all of them together to the
    bot's ``cpu_percent``, ``memory_mb`` and ``processes``. With a group per process a bot at
    tables of k, on w workers, had k x w cores and k x w x ``memory_mb``: it could think on
    every slot at once and slow its opponents, whose clocks run on wall time."""

    owner: int
    """The run process's id: the group is the run's, and a later referee removes it once that
    process is gone (``_prepare``)."""
    bot: str
    """The bot's name."""

    @property
    def dirname(self) -> str:
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in self.bot)[:64]
        return f"bot-{self.owner}-account-{safe}"


def _mounts(mountinfo: str) -> list[tuple[Path, str, frozenset[str]]]:
    """(mount point, filesystem type, super options) of each cgroup mount in ``mountinfo``."""
    found = []
    for line in mountinfo.splitlines():
        left, sep, right = line.partition(" - ")
        fields = right.split()
        if not sep or len(fields) < 3 or fields[0] not in ("cgroup", "cgroup2"):
            continue
        point = Path(left.split()[4].replace("\\040", " "))
        found.append((point, fields[0], frozenset(fields[2].split(","))))
    return found


def _own_groups(proc_cgroup: str) -> dict[str, str]:
    """Controller (``""`` for version 2) -> this process's group path, from /proc/self/cgroup."""
    own: dict[str, str] = {}
    for line in proc_cgroup.splitlines():
        _, _, rest = line.partition(":")
        names, _, path = rest.partition(":")
        for name in names.split(",") if names else [""]:
            own[name] = path
    return own


def find_hierarchies(mountinfo: str, proc_cgroup: str) -> tuple[Hierarchy, ...]:
    """The hierarchies that hold the controllers bots need: version 1 when every controller is
    there (the kernel then keeps them out of version 2), else version 2."""
    own = _own_groups(proc_cgroup)
    mounts = _mounts(mountinfo)
    v1: list[Hierarchy] = []
    for point, kind, options in mounts:
        held = options & frozenset(V1_CONTROLLERS)
        if kind == "cgroup" and held:
            path = own.get(sorted(held)[0], "/")
            v1.append(Hierarchy(point / path.lstrip("/") / PARENT, held, False))
    if frozenset().union(*(h.controllers for h in v1)) >= frozenset(V1_CONTROLLERS):
        return tuple(v1)
    for point, kind, _ in mounts:
        if kind == "cgroup2":
            available = _read(point / own.get("", "/").lstrip("/") / "cgroup.controllers")
            held = frozenset(available.split()) & frozenset(V2_CONTROLLERS)
            return (Hierarchy(point / own.get("", "/").lstrip("/") / PARENT, held, True),)
    return ()


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


@functools.cache
def hierarchies() -> tuple[Hierarchy, ...] | str:
    """This machine's hierarchies, made ready for groups (the parent directories, version 2's
    controllers delegated to them, groups left by a killed referee removed), or why none can be
    used. Computed once per process."""
    found = find_hierarchies(_read(Path("/proc/self/mountinfo")), _read(Path("/proc/self/cgroup")))
    need = frozenset(V2_CONTROLLERS if found and found[0].unified else V1_CONTROLLERS)
    have = frozenset().union(*(h.controllers for h in found)) if found else frozenset()
    if not have >= need:
        missing = ", ".join(sorted(need - have)) or "all"
        return (f"no cgroup hierarchy with the {missing} controller(s) is mounted here, so a "
                "bot's process tree is not held to one share of CPU and memory (each process "
                "still has its own limits)")
    try:
        for hierarchy in found:
            _prepare(hierarchy)
    except OSError as exc:
        return (f"cannot make control groups in {exc.filename or 'the cgroup tree'} "
                f"({exc.strerror}): run the referee as root, or in a cgroup subtree delegated "
                "to it, to hold each bot's process tree to one share of CPU and memory (each "
                "process still has its own limits)")
    return found


def _prepare(hierarchy: Hierarchy) -> None:
    """Make the parent directory, give version 2's groups their controllers, sweep stale
    groups (whose referee process is gone)."""
    if hierarchy.unified:
        wanted = " ".join(f"+{c}" for c in sorted(hierarchy.controllers))
        _write(hierarchy.parent.parent / "cgroup.subtree_control", wanted)
        hierarchy.parent.mkdir(exist_ok=True)
        _write(hierarchy.parent / "cgroup.subtree_control", wanted)
    else:
        hierarchy.parent.mkdir(exist_ok=True)
    sweep(hierarchy.parent)


def sweep(parent: Path, end_processes: bool = True) -> None:
    """Remove the groups under ``parent`` whose referee process is gone, first ending every
    process still in them. A referee killed outright (kill -9, its node lost) while one of its
    bots was starting leaves that bot running: bubblewrap ties a sandbox's life to the referee
    (``--die-with-parent``) only once it runs, after the bot's shell has joined its groups. Left
    alone, such a process would take its share of the machine's CPU beside the next games
    (opponents' clocks run on wall time) until it chose to stop. ``end_processes=False`` is the
    sweep before this was found, for the test's control."""
    for stale in parent.glob("bot-*"):
        owner = stale.name.split("-")[1]
        if owner.isdigit() and not _alive(int(owner)):
            # An account's process groups go first: a group with groups under it cannot go.
            left = [*stale.glob("p-*"), stale]
            for _ in range(SWEEP_TRIES if end_processes else 1):
                if end_processes:
                    for group in left:
                        _kill_in(group)
                left = [group for group in left if not _removed(group)]
                if not left:
                    break
                time.sleep(0.01)


SWEEP_TRIES: Final = 100
"""How many rounds (10 ms apart) of killing what is in a swept group and removing it, while
the processes just killed exit (one may fork between the read and the kill, but not past the
kills: a few rounds end any tree); a group still busy after that is left for the next sweep.
The same kill-then-remove round as ``launcher``'s for a bot that ended."""


def _kill_in(group: Path) -> None:
    """SIGKILL every process in ``group``."""
    for pid in _read(group / "cgroup.procs").split():
        with contextlib.suppress(OSError):
            os.kill(int(pid), signal.SIGKILL)


def _removed(group: Path) -> bool:
    """Remove ``group`` if it is empty; whether it is gone."""
    try:
        group.rmdir()
    except FileNotFoundError:
        pass
    except OSError:
        return False
    return True


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _write(path: Path, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def problem() -> str | None:
    """Why bots' process trees cannot be held in control groups here, or None when they can."""
    found = hierarchies()
    return found if isinstance(found, str) else None


_names = itertools.count()

ACCOUNT_TRIES: Final = 5
"""How often a process's group is made again when its account vanished meanwhile."""


class BotGroup:
    """One bot process's groups: made with its limits (or under its bot's ``Account``, which
    holds them), joined before it starts, read while it runs, removed after it ends."""

    def __init__(self, found: Iterable[Hierarchy], limits: GroupLimits,
                 account: Account | None = None) -> None:
        found = tuple(found)
        self.accounts: dict[Hierarchy, Path] = {}
        if account is None:
            name = f"bot-{os.getpid()}-{next(_names)}"
            self.dirs = {h: h.parent / name for h in found}
        else:
            self.accounts = {h: h.parent / account.dirname for h in found}
            name = f"p-{os.getpid()}-{next(_names)}"
            self.dirs = {h: self.accounts[h] / name for h in found}
        for attempt in range(ACCOUNT_TRIES):
            try:
                self._make(limits)
                return
            except FileNotFoundError:  # another process removed the empty account meanwhile
                if attempt == ACCOUNT_TRIES - 1:
                    raise

    def _make(self, limits: GroupLimits) -> None:
        made: list[Path] = []
        try:
            for hierarchy, path in self.accounts.items():
                path.mkdir(exist_ok=True)
                _apply(hierarchy, path, limits)
            for hierarchy, path in self.dirs.items():
                path.mkdir()
                made.append(path)
                if not self.accounts:
                    _apply(hierarchy, path, limits)
        except OSError:
            for path in made:
                with contextlib.suppress(OSError):
                    path.rmdir()
            raise

    @classmethod
    def make(cls, limits: GroupLimits, account: Account | None = None) -> BotGroup | None:
        """The groups of a new bot process (under ``account`` if given), or None where groups
        are not usable here."""
        found = hierarchies()
        return None if isinstance(found, str) else cls(found, limits, account)

    def join_argv(self, argv: list[str]) -> list[str]:
        """``argv`` run by a shell that first moves itself into every group (as an exec, so the
        bot's process is that shell's, and every process it starts is in the groups)."""
        procs = [str(path / "cgroup.procs") for path in self.dirs.values()]
        return ["/bin/sh", "-c", _JOIN_SCRIPT, "craits-join", *procs, "--", *argv]

    def cpu_s(self) -> float:
        """CPU seconds the tree has used so far (processes that ended included)."""
        for hierarchy, path in self.dirs.items():
            if hierarchy.unified:
                for line in _read(path / "cpu.stat").splitlines():
                    key, _, value = line.partition(" ")
                    if key == "usage_usec":
                        return int(value) / 1e6
            elif "cpuacct" in hierarchy.controllers:
                text = _read(path / "cpuacct.usage").strip()
                return int(text) / 1e9 if text else 0.0
        return 0.0

    def kill(self) -> None:
        """SIGKILL every process still in the groups (the sandbox's own end kills them too, but
        only as fast as the kernel gets to it; a group cannot go while one is left)."""
        for path in self.dirs.values():
            _kill_in(path)

    def remove(self) -> bool:
        """Remove the groups (once every process in them has ended); whether all went. The
        account goes too when this was its last process (another of the bot's processes, in
        this worker or another, keeps it otherwise; the next to start makes it again)."""
        gone = True
        for path in self.dirs.values():
            try:
                path.rmdir()
            except FileNotFoundError:
                pass
            except OSError as exc:
                gone = False
                if exc.errno != errno.EBUSY:
                    raise
        if gone:
            for path in self.accounts.values():
                with contextlib.suppress(OSError):  # EBUSY: the bot has other processes
                    path.rmdir()
        return gone


def _apply(hierarchy: Hierarchy, path: Path, limits: GroupLimits) -> None:
    """Write the limits of the controllers ``hierarchy`` holds into group ``path``."""
    quota = limits.cpu_percent * PERIOD_US // 100
    memory = limits.memory_mb << 20
    held = hierarchy.controllers
    if hierarchy.unified:
        settings = {"cpu.max": f"{quota} {PERIOD_US}", "memory.max": str(memory),
                    "pids.max": str(limits.processes)}
        controller = {"cpu.max": "cpu", "memory.max": "memory", "pids.max": "pids"}
        for name, value in settings.items():
            if controller[name] in held:
                _write(path / name, value)
        with contextlib.suppress(OSError):  # absent without swap accounting
            _write(path / "memory.swap.max", "0")
        return
    if "cpu" in held:
        _write(path / "cpu.cfs_period_us", str(PERIOD_US))
        _write(path / "cpu.cfs_quota_us", str(quota))
    if "memory" in held:
        _write(path / "memory.limit_in_bytes", str(memory))
    if "pids" in held:
        _write(path / "pids.max", str(limits.processes))
