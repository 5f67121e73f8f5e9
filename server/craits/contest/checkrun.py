"""``python -m craits.contest.checkrun``: the conformance run of ``craits check``, sandboxed,
in a child process started in the version's own directory.

Why a child: ``craits check`` runs a bot with the current directory as its own (the sandbox
shows it that directory and nothing else), and the service's current directory is process-wide,
shared by the API and the ladder. A child started in ``bots/<hash>`` gets exactly the sandbox
``craits check --sandbox`` gives a bot author, under the contest's limits and move time. It asks
the kernel to kill it if the service dies (``PR_SET_PDEATHSIG``), so a ``kill -9`` of the
service leaves no validation running; the version's lease then replays it.

Reads its options as one JSON argument; prints ``Report.to_dict()`` as one JSON line.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from craits.check.conformance import CheckOptions, run_checks
from craits.hosting.sandbox import SandboxLimits
from craits.referee.bridge import run

from .tableworker import run_below

PR_SET_PDEATHSIG: Final = 1


def die_with_parent() -> None:
    """SIGKILL this process when the service that started it ends, however it ends (this
    child's and ``selfplay``'s)."""
    # Not Linux: the check still ends on its own timeouts.
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


EXIT_INTERRUPTED: Final = 128 + signal.SIGINT
"""A child's status when the service stopped it at its time limit (as after a Ctrl-C)."""


def child_main(argv: list[str], work: Callable[[str], dict[str, Any]]) -> int:
    """A validation child's whole run (this one's and ``selfplay``'s): ``work(argv[0])``,
    ``argv[1]`` below the service's priority (``tableworker.run_below``: before any thread
    starts, so that every thread and the sandboxed bots inherit it); its report printed as one
    JSON line on stdout.

    SIGINT stops it as Ctrl-C stops a command: ``bridge.run`` raises ``KeyboardInterrupt`` at
    the next checkpoint, so the run ends as any run ends, stopping its bots and copying their
    output to its end into their logs (``validation.stop_at_limit`` sends it at the time limit);
    it then exits with ``EXIT_INTERRUPTED`` and no report. Its handler is set here, since a
    child started with SIGINT ignored would keep ignoring it."""
    run_below(int(argv[1]) if len(argv) > 1 else 0)
    die_with_parent()
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        report = work(argv[0])
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    print(json.dumps(report), flush=True)
    return 0


def checks(argument: str) -> dict[str, Any]:
    """The conformance run the JSON ``argument`` describes, as ``Report.to_dict()``."""
    options = json.loads(argument)
    check = CheckOptions(move_ms=int(options["move_ms"]), log_dir=Path(options["log_dir"]),
                         limits=SandboxLimits(**options["limits"]),
                         connect_timeout_s=float(options.get("connect_timeout_s", 15.0)))
    return run(run_checks, options["command"], check).to_dict()


def main(argv: list[str]) -> int:
    """Run the checks the JSON in ``argv[0]`` describes (``child_main``)."""
    return child_main(argv, checks)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
