"""A real Ray cluster of separate nodes on this machine, for tests: ``ray start`` as a user would.

Each node is ``ray start --block`` in a session of its own, so a node is stopped (or killed,
as a machine that dies) by signalling every process of that session, which holds every process
Ray starts for it (its raylet and agents, and its workers, each in a process group of its own);
never with ``ray stop``, which would stop every Ray node on the machine, another test run's
included. Every port is a free one picked here and the
cluster's files are in a temp directory of its own, so two test runs cannot meet.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from contextlib import suppress
from pathlib import Path
from typing import Final

from tests.procfs import SESSION, STATE, pids_where, stat_of

RAY: Final = Path(sys.executable).with_name("ray")
START_S: Final = 120.0
"""How long a node may take to start on a busy machine."""
STOP_S: Final = 15.0
"""How long a stopped node's processes may take to end before they are killed (a bound: they
end in about 2.5 s)."""
OBJECT_STORE: Final = str(80 * 1024 * 1024)
"""The smallest object store Ray accepts (plus a little): the games are small."""
FAST_FAILURE_DETECTION: Final = {
    "RAY_health_check_period_ms": "500",
    "RAY_health_check_timeout_ms": "1000",
    "RAY_health_check_failure_threshold": "3",
}
"""The head declares a silent node dead after ~2 s (default: ~30 s)."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class RayNode:
    """One ``ray start --block`` and every process it started."""

    def __init__(self, args: list[str], log: Path, env: dict[str, str]) -> None:
        self.log = log
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                [str(RAY), "start", "--block", "--node-ip-address", "127.0.0.1",
                 "--object-store-memory", OBJECT_STORE, "--disable-usage-stats",
                 "--dashboard-agent-listen-port", str(free_port()),
                 "--metrics-export-port", str(free_port()), *args],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True, env={**os.environ, **env},
            )
        deadline = time.monotonic() + START_S
        while b"Ray runtime started" not in log.read_bytes():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"a Ray node did not start:\n{log.read_text()}")
            time.sleep(0.2)

    def kill(self) -> None:
        """The node dies at once, as a machine that loses power."""
        self._signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        """Stop the node as Ctrl-C stops ``ray start --block``: it ends the processes it started
        and exits (in seconds); whatever of its session is still running ``STOP_S`` later is
        killed. Not SIGTERM: Ray's handler for it drains the node first, which held every
        test's teardown for the 15 s it was given, per node."""
        with suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGINT)
        deadline = time.monotonic() + STOP_S
        with suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=STOP_S)
        while running(self.process.pid) and time.monotonic() < deadline:
            time.sleep(0.05)  # its workers end once they see their raylet gone
        self.kill()

    def _signal(self, sig: signal.Signals) -> None:
        for pid in session(self.process.pid):
            with suppress(ProcessLookupError):  # gone already
                os.kill(pid, sig)


def session(sid: int) -> list[int]:
    """The processes of session ``sid``."""
    return pids_where(SESSION, sid)


def running(sid: int) -> list[int]:
    """The processes of session ``sid`` that have not exited (zombies left to be reaped by
    whoever adopted them do not count)."""
    alive = []
    for pid in session(sid):
        with suppress(OSError, IndexError):  # ended while we looked
            if stat_of(pid)[STATE] != "Z":
                alive.append(pid)
    return alive


class RayCluster:
    """A head node (no worker node until ``add_node``)."""

    def __init__(self, cpus: int, env: Mapping[str, str] | None = None) -> None:
        """``env``: more environment for every node (and so its workers)."""
        self.dir = Path(tempfile.mkdtemp(prefix="craits-ray-", dir="/tmp"))  # Unix socket paths
        self.port = free_port()  # must be short: Ray's sockets live under this directory
        self.address = f"127.0.0.1:{self.port}"
        self.env = {"RAY_USAGE_STATS_ENABLED": "0", **(env or {})}
        self.nodes: list[RayNode] = []
        try:
            self.head = self._start([
                "--head", "--port", str(self.port), "--num-cpus", str(cpus),
                "--include-dashboard", "false", "--dashboard-port", str(free_port()),
                "--ray-client-server-port", str(free_port()), "--temp-dir", str(self.dir),
            ], {**self.env, **FAST_FAILURE_DETECTION})
        except BaseException:
            shutil.rmtree(self.dir, ignore_errors=True)
            raise

    def add_node(self, cpus: int) -> RayNode:
        """A second machine joining the cluster."""
        return self._start(["--address", self.address, "--num-cpus", str(cpus)], self.env)

    def _start(self, args: list[str], env: dict[str, str]) -> RayNode:
        node = RayNode(args, self.dir / f"node-{len(self.nodes)}.log", env)
        self.nodes.append(node)
        return node

    def stop(self) -> None:
        """Stop every node (workers first) and remove the cluster's files."""
        for node in reversed(self.nodes):
            node.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
