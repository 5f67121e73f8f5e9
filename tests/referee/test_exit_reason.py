"""A dead bot's reason is its exit status or signal, never the last line it logged."""

import signal
from pathlib import Path

from craits.hosting.launcher import exit_reason, last_error


def test_an_exit_status_is_given_as_such() -> None:
    assert exit_reason(1) == "bot process exited with status 1"
    assert exit_reason(127) == "bot process exited with status 127 (command not found)"


def test_a_signal_is_named() -> None:
    assert exit_reason(-signal.SIGKILL) == "bot process was killed by signal SIGKILL"
    assert exit_reason(-200) == "bot process was killed by signal 200"


def test_only_a_last_error_line_is_quoted(tmp_path: Path) -> None:
    log = tmp_path / "bot.stderr.log"
    log.write_text("craits_sdk: INFO: connected as 'crash'\n")
    assert last_error(log) == ""
    log.write_text("craits pipe: ERROR: exited with status 127; stopping\n")
    assert last_error(log) == ": craits pipe: ERROR: exited with status 127; stopping"
    assert last_error(tmp_path / "missing.log") == ""
