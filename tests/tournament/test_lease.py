"""One runner per tournament: the lease refuses a second live runner and outlives no process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from craits.tournament.run.lease import LOCK_FILE, LeaseError, lease

HOLD = """
import sys, time
from pathlib import Path
from craits.tournament.run.lease import lease
with lease(Path(sys.argv[1]), "t1"):
    print("held", flush=True)
    time.sleep(60)
"""


def test_a_live_holder_is_named_and_a_killed_one_blocks_nothing(tmp_path: Path) -> None:
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(LeaseError, match=rf"tournament t1 is being run by another process "
                           rf"\(pid {holder.pid}\)"), lease(tmp_path, "t1"):
            pass
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
    assert (tmp_path / LOCK_FILE).read_text() == f"{holder.pid}\n"  # a stale pid, no matter
    # taken at once: the lock never waits (a waiting one would have waited for the live holder
    # above instead of refusing), and the kernel freed it when the holder was killed
    with lease(tmp_path, "t1"):
        assert (tmp_path / LOCK_FILE).read_text() == f"{os.getpid()}\n"


def test_the_lease_is_free_again_once_its_holder_is_done(tmp_path: Path) -> None:
    with lease(tmp_path / "logs" / "t1", "t1"):
        pass
    with lease(tmp_path / "logs" / "t1", "t1"):
        pass
