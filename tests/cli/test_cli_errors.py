"""User mistakes and hostile surroundings as a user meets them: files that cannot be written,
readers that stop early, Ctrl-C. One line naming the problem, never a traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from craits.cli import main as cli_main

if TYPE_CHECKING:
    from .helpers import Runner

TWO_BOTS = ("--bot", "random", "--bot", "greedy")
UNWRITABLE_DIR = Path("/sys/craits-test-logs")
"""mkdir is refused here even for root (tests may run as root, who may write anywhere else)."""


@pytest.mark.parametrize(("path", "reason"), [
    ("/nonexistent/dir/x.log", "No such file or directory"),
    ("/tmp", "Is a directory"),
])
def test_pipe_stderr_file_that_cannot_be_appended_to(cli: Runner, path: str, reason: str) -> None:
    result = cli("pipe", "--server", "127.0.0.1:1", "--token", "t", "--stderr", path, "--", "cat")
    result.assert_usage_error(f"--stderr {path}", reason)


@pytest.mark.parametrize("command", [("match", *TWO_BOTS), ("check", "random"),
                                     ("play", "--bot", "random")])
def test_log_dir_that_is_a_file_or_cannot_be_made(
    cli: Runner, command: tuple[str, ...], tmp_path: Path
) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    cli(*command, "--log-dir", str(a_file)).assert_usage_error(
        f"--log-dir {a_file}", "not a directory")
    if not UNWRITABLE_DIR.parent.is_dir():
        pytest.skip("no /sys here")
    cli(*command, "--log-dir", str(UNWRITABLE_DIR)).assert_usage_error(
        f"--log-dir {UNWRITABLE_DIR}", "not permitted")


def test_a_record_file_that_fills_up_is_one_line_and_exit_1(cli: Runner) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    result = cli("simulate", "--games", "50", "--record", "/dev/full")
    assert result.status == 1 and result.out == ""
    assert result.err == ("craits: error: cannot write record file '/dev/full': "
                          "No space left on device\n")


@pytest.mark.parametrize("argv", [
    ("rules", "show", "--json"),
    ("simulate", "--games", "3"),
    ("simulate", "--games", "200", "--record", "/dev/stdout"),
    ("match", *TWO_BOTS, "--json", "--set", "short_game=true"),
    ("check", "random", "--verbose"),
])
@pytest.mark.slow
def test_a_reader_that_stops_early_is_not_a_traceback(argv: tuple[str, ...]) -> None:
    """``craits ... | head -1``, made certain: stdout is a pipe whose reader is already gone."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run([sys.executable, "-m", "craits", *argv], stdout=write_end,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)
    assert proc.returncode == 141, proc.stderr
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr


def test_ctrl_c_while_the_commands_load_is_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(name: str) -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr("importlib.import_module", interrupted)
    assert cli_main.main(["rules", "show"]) == 130
    assert capsys.readouterr().err == "craits: interrupted\n"


@pytest.mark.parametrize("sigint", [signal.SIG_DFL, signal.SIG_IGN])
@pytest.mark.slow
def test_sigterm_stops_a_command_like_ctrl_c(sigint: signal.Handlers) -> None:
    """Also when started with SIGINT ignored, as a shell without job control starts a
    background command (the SIGTERM is relayed as a SIGINT)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "craits", "simulate", "--games", "1000000"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, sigint),
    )
    _wait_until_it_catches(proc.pid, signal.SIGTERM)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.endswith("craits: interrupted\n")


def _wait_until_it_catches(pid: int, sig: signal.Signals) -> None:
    """Wait until process ``pid`` has a handler for ``sig`` (its ``SigCgt`` mask in /proc), so a
    slow start-up cannot make the test send the signal before ``main`` is ready for it."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status = Path(f"/proc/{pid}/status").read_text()
        caught = int(status.split("SigCgt:")[1].split()[0], 16)
        if caught >> (sig - 1) & 1:
            time.sleep(0.2)  # and into the command itself
            return
        time.sleep(0.02)
    raise AssertionError(f"process {pid} never installed a handler for {sig.name}")


@pytest.mark.parametrize(("argv", "prog"), [
    (("tournament", "run", "--bogus"), "craits tournament run"),
    (("match", *TWO_BOTS, "extra"), "craits match"),
    (("rules", "show", "--jsn"), "craits rules show"),
])
def test_an_unknown_argument_is_reported_by_the_command_it_was_given_to(
    cli: Runner, argv: tuple[str, ...], prog: str
) -> None:
    result = cli(*argv)
    assert result.status == 2 and result.out == ""
    assert result.err.startswith(f"usage: {prog} "), result.err
    assert result.err.endswith(f"{prog}: error: unrecognized arguments: {argv[-1]}\n")
