"""Where ``craits match``, ``check`` and ``play`` put their bots' stderr logs."""

from __future__ import annotations

import tempfile
from pathlib import Path

from .common import UsageError


class BotLogs:
    """The directory for one run's bot logs: the user's ``--log-dir`` or a new temp dir."""

    def __init__(self, given: Path | None, command: str) -> None:
        self.temporary = given is None
        self.path = _temp_dir(command) if given is None else _prepared(given)


def _prepared(path: Path) -> Path:
    """``--log-dir``, created with its parents, once a file could be written in it.

    Checked before any bot starts: the launcher would otherwise fail on it with a traceback
    (FileExistsError, PermissionError) while bots are already running.
    """
    try:
        path.mkdir(parents=True, exist_ok=True)
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
