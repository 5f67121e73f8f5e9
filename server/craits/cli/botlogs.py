"""Where ``craits match``, ``check`` and ``play`` put their bots' stderr logs.

A ``--log-dir`` the user names is always kept. Without one, each run gets a new temp dir, kept
only when something failed (a bot that never connected, faults, a failed check, an unexpected
error) and its path then shown; a clean run's logs say nothing anyone needs, and kept by every
run they piled up in /tmp by the thousand.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from types import TracebackType

from craits import private

from .common import UsageError


class BotLogs:
    """The directory for one run's bot logs (a context: a clean temp dir is removed at exit)."""

    def __init__(self, given: Path | None, command: str) -> None:
        self.temporary = given is None
        self.path = _temp_dir(command) if given is None else _prepared(given)
        self.kept = not self.temporary

    def keep(self) -> Path:
        """Something failed: the logs stay. Returns where they are, for the message."""
        self.kept = True
        return self.path

    def __enter__(self) -> BotLogs:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        unexpected = kind is not None and not issubclass(kind, UsageError | KeyboardInterrupt)
        if unexpected and self.temporary:  # the bots' logs may tell why
            print(f"craits: bot logs: {self.keep()}", file=sys.stderr)
        if not self.kept:
            shutil.rmtree(self.path, ignore_errors=True)


def _prepared(path: Path) -> Path:
    """``--log-dir``, created with its parents, once a file could be written in it.

    Checked before any bot starts: the launcher would otherwise fail on it with a traceback
    (FileExistsError, PermissionError) while bots are already running.
    """
    try:
        private.make_dirs(path)
        tempfile.TemporaryFile(dir=path).close()
    except FileExistsError:
        raise UsageError(f"cannot use --log-dir {path}: it exists and is not a directory") from None
    except OSError as exc:
        raise UsageError(f"cannot use --log-dir {path}: {exc.strerror or exc}") from None
    return path


def _temp_dir(command: str) -> Path:
    """A new ``craits-COMMAND-*`` directory in the system's temp dir."""
    try:
        return Path(tempfile.mkdtemp(prefix=f"craits-{command}-"))
    except OSError as exc:
        raise UsageError(f"cannot create a log directory in {tempfile.gettempdir()}: "
                         f"{exc.strerror or exc}; pass --log-dir DIR") from None
