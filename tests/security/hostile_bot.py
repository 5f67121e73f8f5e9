"""A contestant's bot that tries every way of cheating we know of, then plays like ``random``.

Each attack runs once per process, before the bot connects (so no move clock is running and its
moves stay exactly those of ``RandomBot``: a tournament with it must end as one without it), and
writes one line to stderr, which the referee keeps in the bot's log:

    ATTACK <name>: blocked <why>      the defence held
    ATTACK <name>: LEAKED <what>      the bot got what it must not have

and, for every game, ``GAME <process nonce> <game id>``, so the test can see which games one
process played (one process must never see two seatings of one deal set).

Every attack is bounded (at most ``FORK_CAP`` processes, ``MEMORY_GB`` of memory, ``DISK_CAP_MB``
of files), so that even where no defence holds it cannot harm the machine it runs on. The test
fills in the ``@...@`` placeholders (paths and the port it chose) before the run.
"""

from __future__ import annotations

import contextlib
import errno
import mmap
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from craits_bots.random import RandomBot
from craits_sdk import GameInfo, run

DATABASE = "@DATABASE@"
OTHER_DIR = "@OTHER_DIR@"
REFEREE_PORT = int("@PORT@")
ORGANISER_SECRET = "ORGANISER_SECRET"
CHILD_MARK = "2999"
"""``sleep 2999``: the child left behind, which the test looks for on the host afterwards."""

FORK_CAP = 200
MEMORY_GB = 2
DISK_CAP_MB = 100
FLOOD_MB = 12
NONCE = secrets.token_hex(8)


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def read_database() -> str:
    """Open the results database by its real path and by the default relative one."""
    for path in (DATABASE, "craits-results/tournaments.sqlite"):
        try:
            with open(path, "rb") as db:
                head = db.read(16)
        except OSError as exc:
            continue_why = exc.strerror
            continue
        if head.startswith(b"SQLite format 3"):
            return f"LEAKED read {path}"
        continue_why = f"{path} is empty"
    return f"blocked {continue_why}"


def other_processes() -> list[int]:
    """Pids in /proc that are neither this process nor its ancestors nor its children."""
    mine = {os.getpid(), os.getppid()}
    pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    return [p for p in pids if p not in mine and p != 1 and _parent(p) not in mine]


def _parent(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return -1
    return int(stat.rpartition(")")[2].split()[1])


def sibling_token() -> str:
    """Read another bot's CRAITS_TOKEN from /proc/*/environ (how one bot took another's seat)."""
    own = os.environ.get("CRAITS_TOKEN", "")
    for pid in other_processes():
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            continue
        for item in environ.split(b"\0"):
            if item.startswith(b"CRAITS_TOKEN=") and item[13:].decode() != own:
                return f"LEAKED the token of process {pid}"
    return f"blocked {len(other_processes())} other processes visible, no token"


def organiser_env() -> str:
    """A secret in the organiser's environment must not reach a bot."""
    if ORGANISER_SECRET in os.environ:
        return "LEAKED the organiser's environment"
    return f"blocked environment has only {sorted(os.environ)}"


def network() -> str:
    """Dial the referee's TCP port on loopback (the bot was told only of its Unix socket)."""
    try:
        with socket.create_connection(("127.0.0.1", REFEREE_PORT), timeout=1):
            return f"LEAKED connected to 127.0.0.1:{REFEREE_PORT}"
    except OSError as exc:
        return f"blocked {exc.strerror or exc}"


def signal_sibling() -> str:
    """Signal 0 (a harmless probe) every other process: any it may signal it could kill."""
    reachable = []
    for pid in other_processes():
        with contextlib.suppress(OSError):
            os.kill(pid, 0)
            if b"CRAITS_TOKEN" in _environ(pid):
                reachable.append(pid)
    if reachable:
        return f"LEAKED may signal bot processes {reachable[:5]}"
    return "blocked no other bot process to signal"


def _environ(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return b""


def fork_bomb() -> str:
    """Fork until refused (at most ``FORK_CAP`` children), then end them all."""
    children: list[int] = []
    refused = ""
    try:
        while len(children) < FORK_CAP:
            try:
                pid = os.fork()
            except OSError as exc:
                refused = exc.strerror or str(exc)
                break
            if pid == 0:
                time.sleep(30)
                os._exit(0)
            children.append(pid)
    finally:
        for pid in children:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
    if not refused:
        return f"LEAKED forked {len(children)} processes unrefused"
    return f"blocked after {len(children)} forks: {refused}"


def memory() -> str:
    """Map ``MEMORY_GB`` of memory at once (address space: what a limit must refuse; mapped,
    not touched, so that where nothing refuses it the machine does not pay for it)."""
    try:
        block = mmap.mmap(-1, MEMORY_GB << 30)
    except (MemoryError, OSError) as exc:
        return f"blocked {type(exc).__name__}: {exc}"
    block.close()
    return f"LEAKED mapped {MEMORY_GB} GiB"


def fill_disk() -> str:
    """Write into /tmp until refused (at most ``DISK_CAP_MB``), then into every directory it
    should not write: its own, another bot's, the database's."""
    written, refused = 0, ""
    path = Path("/tmp") / f"fill-{NONCE}"
    try:
        with open(path, "wb") as out:
            for _ in range(DISK_CAP_MB):
                out.write(b"\0" * (1 << 20))
                out.flush()
                written += 1
    except OSError as exc:
        refused = errno.errorcode.get(exc.errno or 0, str(exc))
    finally:
        with contextlib.suppress(OSError):
            path.unlink()
    if not refused:
        return f"LEAKED wrote {written} MiB to /tmp"
    for target in (Path.cwd(), Path(OTHER_DIR), Path(DATABASE).parent):
        with contextlib.suppress(OSError):
            (target / f"planted-{NONCE}").write_text("x")
            return f"LEAKED wrote into {target}"
    return f"blocked /tmp full after {written} MiB ({refused}); no other directory writable"


def flood_stderr() -> str:
    """Write ``FLOOD_MB`` to stderr: the referee must keep only its limit of it. Only the bot
    called ``victim`` floods, so that the other's log keeps its ``GAME`` lines."""
    if os.environ.get("CRAITS_BOT_NAME") != "victim":
        return "skipped (only the victim floods)"
    chunk = "#" * 1023 + "\n"
    for _ in range(FLOOD_MB << 10):
        sys.stderr.write(chunk)
    sys.stderr.flush()
    return "blocked? (the test measures the log)"


def leave_child() -> str:
    """Start a child in a session of its own that outlives the bot."""
    subprocess.Popen(["sleep", CHILD_MARK], start_new_session=True,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return "blocked? (the test looks for it afterwards)"


ATTACKS: dict[str, Callable[[], str]] = {
    "read_database": read_database,
    "sibling_token": sibling_token,
    "organiser_env": organiser_env,
    "network": network,
    "signal_sibling": signal_sibling,
    "fork_bomb": fork_bomb,
    "memory": memory,
    "fill_disk": fill_disk,
    "flood_stderr": flood_stderr,
    "leave_child": leave_child,
}


def attack_all() -> None:
    for name, attack in ATTACKS.items():
        try:
            outcome = attack()
        except Exception as exc:  # an attack that breaks is a blocked one, said so
            outcome = f"blocked {type(exc).__name__}: {exc}"
        say(f"ATTACK {name}: {outcome}")


class Hostile(RandomBot):
    """``RandomBot``'s moves, after every attack; it reports each game it is dealt."""

    def on_game_start(self, game: GameInfo) -> None:
        say(f"GAME {NONCE} {game.game_id}")
        super().on_game_start(game)


if __name__ == "__main__":
    attack_all()
    run(Hostile)
