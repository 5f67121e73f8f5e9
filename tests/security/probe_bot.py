"""A bot process that looks around its sandbox and says what it found, then exits (it never
dials the referee). One line per finding, ``PROBE <what>: <finding>``."""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

COUNTERS = ("sys/fs/file-nr", "sys/fs/inode-nr", "loadavg", "meminfo", "stat", "uptime",
            "pressure/cpu", "vmstat", "locks")
"""Machine-wide counters under /proc that one process can move and another read."""
CLONE_NEWUSER = 0x10000000


def counter(name: str) -> str:
    try:
        text = Path("/proc", name).read_text()
    except OSError as exc:
        return f"masked ({exc.strerror})"
    return "visible" if text.strip() else "masked (empty)"


def user_namespace() -> str:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWUSER) == 0:
        return "created"
    return f"refused ({os.strerror(ctypes.get_errno())})"


def token() -> str:
    """Where, beyond the bot's own processes (this one and the shell that started it), its
    token can be read."""
    mine = os.environ["CRAITS_TOKEN"].encode()
    own = {os.getpid(), os.getppid()}
    seen = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in own:
            continue
        for part in ("cmdline", "environ"):
            try:
                if mine in (entry / part).read_bytes():
                    seen.append(f"/proc/{entry.name}/{part}")
            except OSError:
                pass
    return f"seen in {' '.join(seen)}" if seen else "hidden"


if __name__ == "__main__":
    for name in COUNTERS:
        print(f"PROBE {name}: {counter(name)}", flush=True)
    print(f"PROBE userns: {user_namespace()}", flush=True)
    print(f"PROBE token: {token()}", flush=True)
    print(f"PROBE cwd: {' '.join(sorted(os.listdir('.')))}", flush=True)
