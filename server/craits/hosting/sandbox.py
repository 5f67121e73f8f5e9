"""The sandbox a command bot runs in: bubblewrap namespaces, a read-only system, resource limits.

A contestant's bot is a program written by someone who wants to win, so it runs where it can
see nothing that is not its own and touch nothing that is not its own (``docs/security.md``):

- its own pid, ipc, uts, cgroup, user and network namespaces (``bwrap --unshare-all``): it sees no
  other process (so no sibling's ``/proc/*/environ`` token, nobody to signal) and has no network
  at all; it reaches the referee through a Unix socket bound into the sandbox;
- a read-only view of the system and of the runtimes it needs (the Python installation and
  virtualenv, the SDK and bundled packages), its own directory read-only, and a private ``/tmp``
  of bounded size that disappears with it; the results database and the logs are never mounted
  (and masked when they lie inside a mounted tree);
- an environment reduced to an allow-list plus ``CRAITS_SERVER``/``CRAITS_TOKEN``;
- resource limits (``prlimit``): address space, processes, open files, file size and CPU time;
  when the referee runs as root every bot process also gets a user id of its own, so the process
  limit is its own and no bot can touch another's files.
A bot that exceeds a limit fails in its own process (an allocation error, a refused fork, a
signal), which the referee sees as that bot's fault; the pid namespace ends all its children
when it ends (``--die-with-parent`` ties it to the referee's event-loop thread, which forks
it: ``spawn``).

The mounts are data: ``bwrap_command`` assembles a list of arguments from a ``SandboxPlan``,
never a shell string, so no path or name can inject an option.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import itertools
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Final

from . import seccomp

BWRAP: Final = "bwrap"
PRLIMIT: Final = "prlimit"
SETPRIV: Final = "setpriv"

SOCKET_INSIDE: Final = "/run/craits/referee.sock"
"""Where the referee's Unix socket appears inside every sandbox."""

ENV_ALLOWED: Final = ("LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM")
"""Variables passed through from the organiser's environment; nothing else is (no secret in the
organiser's environment reaches a bot)."""

SYSTEM_DIRS: Final = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc", "/opt")
"""Mounted read-only when they exist: programs, libraries and their configuration."""

PROC_MASKED_FILES: Final = (
    "meminfo", "loadavg", "stat", "uptime", "vmstat", "zoneinfo", "buddyinfo", "pagetypeinfo",
    "diskstats", "interrupts", "softirqs", "schedstat", "locks", "swaps", "key-users", "keys",
    "slabinfo", "vmallocinfo", "timer_list", "sched_debug", "kallsyms", "latency_stats",
)
"""Files of the sandbox's /proc that show counters of the whole machine (memory, load, CPU
times, interrupts, file locks, ...), replaced by an empty file: any two processes that can read
one and move it can signal each other through it (issue 30 carried a hand through
``/proc/sys/fs/file-nr``). The sandbox's own pid namespace already hides every other process."""

PROC_MASKED_DIRS: Final = ("sys", "pressure", "irq", "fs", "driver", "bus", "tty", "sysvipc")
"""Directories of /proc masked the same way, by an empty read-only tmpfs: ``sys`` holds the
sysctls (``fs/file-nr``, ``fs/inode-nr``, ``kernel/random/entropy_avail``...), ``pressure`` the
machine's stall times."""

UID_BASE: Final = 0x6C000000
"""First user id handed to sandboxed bots when the referee runs as root: far above any account
(Linux ids are 32-bit), so a bot's processes share an id with nobody else's."""
UID_SPAN: Final = 1 << 24


@dataclass(frozen=True, slots=True)
class SandboxLimits:
    """Per-bot resource limits (``[bots.limits]`` in a tournament file)."""

    memory_mb: int = 2048
    """Address space of each process (RLIMIT_AS): a bot allocating beyond it gets an error; and
    the memory of its whole process tree (its control group, ``botgroup.py``), over which the
    kernel kills one of its processes."""
    processes: int = 64
    """Processes and threads of its whole tree (its control group's ``pids.max``), and of its
    user id (RLIMIT_NPROC; own id only as root)."""
    open_files: int = 256
    """Open file descriptors per process (RLIMIT_NOFILE)."""
    file_size_mb: int = 64
    """Largest file a process may write (RLIMIT_FSIZE)."""
    cpu_s: int = 36_000
    """CPU seconds over the process's whole life (RLIMIT_CPU), and of its whole tree (counted in
    its control group): a runaway loop ends, an honest bot that thinks for ten hours in one
    tournament does not."""
    cpu_percent: int = 100
    """CPU bandwidth of the whole tree, in percent of one core (its control group's quota): a
    bot that starts workers does not out-compute one that does not, nor slow its opponents."""
    tmp_mb: int = 64
    """Size of the private writable /tmp (a tmpfs): a bot filling it gets ENOSPC."""
    stderr_mb: int = 8
    """How much of the bot's stderr its log keeps per process start (the rest is read and
    dropped)."""
    log_mb: int = 64
    """How much its logs may hold in all in one tournament, every process start, slot, worker
    and resume together (``launcher.LogBudget``): a bot that crashes and is restarted, or is
    resumed, gets ``stderr_mb`` more each time, which this bounds."""


LIMIT_RANGES: Final[dict[str, tuple[int, int]]] = {
    "memory_mb": (64, 1 << 20),
    "processes": (4, 1 << 16),
    "open_files": (16, 1 << 20),
    "file_size_mb": (1, 1 << 20),
    "cpu_s": (1, 1 << 31),
    "cpu_percent": (5, 100 * 1024),
    "tmp_mb": (1, 1 << 20),
    "stderr_mb": (1, 1 << 16),
    "log_mb": (1, 1 << 20),
}
"""Accepted range of each limit; below the minimum nothing (a Python interpreter, Node) runs."""

assert set(LIMIT_RANGES) == {f.name for f in fields(SandboxLimits)}


class SandboxError(Exception):
    """The sandbox cannot be built on this machine; the message says what to install or set."""


@dataclass(frozen=True, slots=True)
class SandboxPlan:
    """What one bot process may see, and under which limits."""

    bot_dir: Path
    """The bot's own directory: mounted read-only at its own path, and its working directory."""
    socket: Path
    """The referee's Unix socket on the host (bound at ``SOCKET_INSIDE``)."""
    limits: SandboxLimits
    runtime_dirs: tuple[Path, ...] = ()
    """Read-only trees the bot's runtime needs beyond the system (``runtime_dirs()``)."""
    hidden: tuple[Path, ...] = ()
    """Paths masked by an empty tmpfs if they fall inside a mounted tree (the store, the logs)."""
    uid: int | None = None
    """A user id of the bot's own (only when the referee runs as root), else None."""
    hardened: bool = True
    """The kernel's global counters masked (``PROC_MASKED_FILES``, ``PROC_MASKED_DIRS``) and
    new user namespaces refused. False only in the tests' control runs, which show what the
    hardening stops."""


def plan_for(bot_dir: Path, socket: Path, limits: SandboxLimits,
             hidden: tuple[Path, ...] = ()) -> SandboxPlan:
    """The plan of a bot process about to start here: this referee's runtime and, as root, a
    user id of its own."""
    return SandboxPlan(bot_dir, socket, limits, runtime_dirs(), hidden, bot_uid())


def missing() -> str | None:
    """Why command bots cannot be sandboxed here (what to install), or None when they can."""
    absent = missing_tools()
    if absent is None:
        return None
    return (f"{absent}: adversarial tournaments run command bots in a sandbox; install "
            "it (`apt-get install bubblewrap`), or set trust = \"trusted\" if every bot is "
            "trusted (docs/security.md)")


def missing_tools() -> str | None:
    """The sandbox's tools missing here, with their packages (``... missing``), or None."""
    absent = [tool for tool in (BWRAP, PRLIMIT, SETPRIV) if shutil.which(tool) is None]
    if not absent:
        return None
    package = {BWRAP: "bubblewrap", PRLIMIT: "util-linux", SETPRIV: "util-linux"}
    return " and ".join(f"{t} (Debian package {package[t]})" for t in absent) + " missing"


@functools.cache
def runtime_dirs() -> tuple[Path, ...]:
    """The trees a bot started by this referee needs to run: this Python (its installation and
    virtualenv), the project's packages wherever they are installed from, and Node's
    installation when it lives outside the system directories. Computed once per process:
    they do not change while it runs, and every sandboxed launch needs them."""
    found: list[Path] = [Path(sys.base_prefix), Path(sys.prefix)]
    for module in ("craits", "craits_sdk", "craits_bots"):
        spec_dir = _package_root(module)
        if spec_dir is not None:
            found.append(spec_dir)
    node = shutil.which("node")
    if node is not None:
        found.append(Path(node).resolve().parent.parent)
    return _outermost(p for p in found if not _under_system(p))


def _package_root(module: str) -> Path | None:
    """The directory holding package ``module`` (the import root), without importing it."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))).resolve().parent


def _under_system(path: Path) -> bool:
    return _within(path, map(Path, SYSTEM_DIRS))


def _within(path: Path, roots: Iterable[Path]) -> bool:
    """Whether ``path`` is one of ``roots`` or lies inside one (one mount shows it)."""
    return any(root == path or root in path.parents for root in roots)


def _outermost(paths: Iterable[Path]) -> tuple[Path, ...]:
    """Distinct paths with any path inside another dropped (one mount covers both)."""
    unique = sorted({p.resolve() for p in paths if p.exists()}, key=lambda p: len(p.parts))
    kept: list[Path] = []
    for path in unique:
        if not _within(path, kept):
            kept.append(path)
    return tuple(kept)


_uids = itertools.count()


def bot_uid_used() -> bool:
    """Whether sandboxed bots get user ids of their own (they do when the referee is root):
    then their files must be readable by other users."""
    return os.geteuid() == 0


def locked_out(directory: Path) -> bool:
    """Whether sandboxed bots, under user ids of their own, cannot read ``directory``."""
    return bot_uid_used() and directory.stat().st_mode & 0o005 != 0o005


def bot_uid() -> int | None:
    """A user id for the next sandboxed bot process when running as root, else None.

    Spread by this process's id, so two referees on one machine hand out different ids."""
    if not bot_uid_used():
        return None
    return UID_BASE + (os.getpid() * 4096 + next(_uids)) % UID_SPAN


def bwrap_command(plan: SandboxPlan, argv: list[str], env: Mapping[str, str],
                  seccomp_fd: int | None = None) -> list[str]:
    """The full argv: ``bwrap`` with the plan's namespaces and mounts, then (inside) ``setpriv``
    to the bot's own user id when there is one, then ``prlimit`` with the plan's limits, then
    the bot's own ``argv``, run with exactly ``env``; ``seccomp_fd``: the filter's descriptor
    (``seccomp.py``), given where bwrap cannot refuse user namespaces itself.

    The limits are set inside, on the bot alone: bwrap itself needs a few processes, and as
    root its process count would be every root process of the machine.
    """
    inner = [*_setpriv_args(plan.uid), *_prlimit_args(plan.limits, plan.uid is not None)]
    options = _bwrap_args(plan, env)
    if seccomp_fd is not None:
        options += ["--seccomp", str(seccomp_fd)]
    return [*options, "--", *inner, *argv]


@dataclass(frozen=True, slots=True)
class Prepared:
    """A sandboxed start: the short argv, and the descriptors it reads its options from."""

    argv: list[str]
    fds: tuple[int, ...]
    """Passed to the child at their own numbers; the caller closes them once it has started."""

    def close(self) -> None:
        """Close this process's copies of the descriptors."""
        for fd in self.fds:
            os.close(fd)


def prepare(plan: SandboxPlan, argv: list[str], env: Mapping[str, str]) -> Prepared:
    """``bwrap_command`` with bwrap's own options (mounts, ``--setenv`` with the bot's token)
    read from a descriptor (``bwrap --args FD``) instead of its command line: a command line
    is world-readable in /proc, and inside the sandbox pid 1 is a copy of bwrap, so the bot
    (or anything on the host) read its token and the host's paths there. What is left on the
    command line (``setpriv``, ``prlimit``, the bot's own command) holds no secret."""
    fds: list[int] = []
    try:
        seccomp_fd = None
        if plan.hardened and plan.uid is not None and seccomp.supported():
            seccomp_fd = seccomp.memfd()
            fds.append(seccomp_fd)
        full = bwrap_command(plan, argv, env, seccomp_fd)
        split = full.index("--", full.index("--chdir"))
        args_fd = os.memfd_create("craits-bwrap-args", 0)
        fds.append(args_fd)
        os.write(args_fd, b"".join(a.encode() + b"\0" for a in full[1:split]))
        os.lseek(args_fd, 0, os.SEEK_SET)
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    return Prepared([BWRAP, "--args", str(args_fd), *full[split:]], tuple(fds))


def _setpriv_args(uid: int | None) -> list[str]:
    if uid is None:
        return []
    return [SETPRIV, f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
            "--inh-caps=-all", "--bounding-set=-all", "--"]


def _prlimit_args(limits: SandboxLimits, own_uid: bool) -> list[str]:
    """RLIMIT_NPROC counts every process of the user id, so it is set only where the bot has
    an id of its own (as the organiser's id it would count the organiser's processes too)."""
    mb = 1 << 20
    args = [PRLIMIT, f"--as={limits.memory_mb * mb}", f"--nofile={limits.open_files}",
            f"--fsize={limits.file_size_mb * mb}", f"--cpu={limits.cpu_s}"]
    if own_uid:
        args.append(f"--nproc={limits.processes}")
    return [*args, "--"]


def _bwrap_args(plan: SandboxPlan, env: Mapping[str, str]) -> list[str]:
    """Namespaces, environment and mounts, in mount order: the fresh /proc, /dev and /tmp
    first, so that binds below /tmp (a bot directory there) land on top of the new /tmp."""
    args = [BWRAP, *_namespaces(plan.uid is not None, plan.hardened), "--die-with-parent",
            "--new-session", "--clearenv"]
    for name, value in env.items():
        args += ["--setenv", name, value]
    args += ["--proc", "/proc", *(_proc_masks() if plan.hardened else []), "--dev", "/dev",
             "--perms", "1777", "--size", str(plan.limits.tmp_mb << 20), "--tmpfs", "/tmp"]
    for directory in SYSTEM_DIRS:
        args += ["--ro-bind-try", directory, directory]
    made: set[Path] = {Path("/"), Path("/tmp"), *map(Path, SYSTEM_DIRS)}
    for path in (*plan.runtime_dirs, plan.bot_dir):
        args += _parents(path, made)
        args += ["--ro-bind", str(path), str(path)]
    args += _masks(plan)
    args += _parents(Path(SOCKET_INSIDE), made)
    args += ["--bind", str(plan.socket), SOCKET_INSIDE, "--chdir", str(plan.bot_dir)]
    return args


def _namespaces(as_root: bool, hardened: bool = True) -> list[str]:
    """Every namespace. As root, all but the user namespace: the bot gets a real user id of its
    own (``setpriv``), which a user namespace would not let it take (new user namespaces are
    then refused by ``seccomp``); otherwise bwrap needs the user namespace to do anything at all
    (``--unshare-all`` includes it), and ``--disable-userns`` (bubblewrap 0.8 and later, as in
    Debian 13; Debian 12 has 0.8.0) keeps the bot from making more inside it."""
    if not as_root:
        if hardened and disable_userns_supported():
            return ["--unshare-all", "--unshare-user", "--disable-userns"]
        return ["--unshare-all"]
    return ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
            "--unshare-cgroup-try"]


@functools.cache
def disable_userns_supported() -> bool:
    """Whether the installed bwrap has ``--disable-userns`` (asked once: its ``--help``)."""
    try:
        shown = subprocess.run([BWRAP, "--help"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return "--disable-userns" in shown.stdout + shown.stderr


@functools.cache
def _proc_masks() -> list[str]:
    """The mounts that mask the global counters of the sandbox's /proc (those this kernel has:
    bwrap fails on a mount point that is not there)."""
    args: list[str] = []
    for name in PROC_MASKED_FILES:
        if os.path.isfile(f"/proc/{name}"):
            args += ["--ro-bind", str(_empty_file()), f"/proc/{name}"]
    for name in PROC_MASKED_DIRS:
        if os.path.isdir(f"/proc/{name}"):
            args += ["--perms", "0555", "--tmpfs", f"/proc/{name}", "--remount-ro",
                     f"/proc/{name}"]
    return args


@functools.cache
def _empty_file() -> Path:
    """An empty file every bot may read, mounted over the masked counters (``/dev/null`` would
    not do: bwrap's binds are ``nodev``, so reading it there fails). One per user of the
    machine, kept: a process that is killed leaves nothing behind. Used only if it is this
    user's own empty file in this user's own directory (nobody else could have put content
    there); else one of this process's own."""
    folder = Path(tempfile.gettempdir()) / f"craits-empty-{os.geteuid()}"
    empty = folder / "empty"
    with contextlib.suppress(FileExistsError):
        folder.mkdir(0o755)
    with contextlib.suppress(FileExistsError, PermissionError):
        empty.touch(0o444, exist_ok=False)
    if _own_empty(folder) and _own_empty(empty):
        return empty
    folder = Path(tempfile.mkdtemp(prefix="craits-empty-"))
    folder.chmod(0o755)
    empty = folder / "empty"
    empty.touch(0o444)
    atexit.register(shutil.rmtree, folder, True)
    return empty


def _own_empty(path: Path) -> bool:
    """``path`` is this user's, no symbolic link, writable by nobody else, and if a file,
    empty."""
    info = path.lstat()
    kind_ok = stat.S_ISDIR(info.st_mode) or (stat.S_ISREG(info.st_mode) and info.st_size == 0)
    return kind_ok and info.st_uid == os.geteuid() and not info.st_mode & 0o022


def _parents(path: Path, made: set[Path]) -> list[str]:
    """``--dir`` for each missing ancestor of a mount point, world-traversable: bwrap would
    otherwise copy the host directory's mode, and a 0700 ``/root`` above the Python
    installation would lock a bot with its own user id out of its interpreter."""
    args: list[str] = []
    for parent in reversed(path.parents):
        if parent not in made:
            made.add(parent)
            args += ["--perms", "0755", "--dir", str(parent)]
    return args


def _masks(plan: SandboxPlan) -> list[str]:
    """Hide the store and the logs where a mounted tree would show them."""
    mounted = (*map(Path, SYSTEM_DIRS), *plan.runtime_dirs, plan.bot_dir)
    args: list[str] = []
    for path in plan.hidden:
        if not path.exists() or not _within(path, mounted):
            continue
        args += ["--tmpfs", str(path)] if path.is_dir() else ["--ro-bind", "/dev/null",
                                                                str(path)]
    return args


def bot_env(path: str, extra: Mapping[str, str]) -> dict[str, str]:
    """The whole environment of a sandboxed bot: the allow-list, a PATH, a HOME in its private
    /tmp, and ``extra`` (the referee's address and the bot's token and name)."""
    env = {name: os.environ[name] for name in ENV_ALLOWED if name in os.environ}
    env.update({"PATH": path, "HOME": "/tmp", "TMPDIR": "/tmp", "PYTHONUNBUFFERED": "1"})
    env.update(extra)
    return env
