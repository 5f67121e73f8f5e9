"""A dead bot's reason is its exit status or signal, never the last line it logged."""

import signal

from craits.referee.launcher import exit_reason


def test_an_exit_status_is_given_as_such() -> None:
    assert exit_reason(1) == "bot process exited with status 1"
    assert exit_reason(127) == "bot process exited with status 127 (command not found)"


def test_a_signal_is_named() -> None:
    assert exit_reason(-signal.SIGKILL) == "bot process was killed by signal SIGKILL"
    assert exit_reason(-200) == "bot process was killed by signal 200"
