"""The live display on a real terminal (a pseudo-terminal) leaves one copy of its block, however
much other processes write to the terminal meanwhile: a worker process's line written straight
to file descriptor 2 used to leave a copy of the block ("Live Elo: provisional", ...) in the
scrollback at every redraw after it. The terminal's screen is rebuilt from what was written to
it, by the few control sequences rich uses."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import textwrap

import pytest

pytestmark = pytest.mark.slow  # real processes on a pseudo-terminal

SCRIPT = textwrap.dedent('''
    import os, subprocess, sys, time
    from craits.cli.live import LiveDisplay
    from craits.tournament.run.runner import Progress

    display = LiveDisplay()
    if sys.argv[1] == "start":
        display.start()
    started = time.monotonic()
    bots = ["greedy", "lowcard", "random"]
    try:
        for done in range(1, 7):
            elo = {b: float(10 * done * (i - 1)) for i, b in enumerate(bots)}
            display(Progress("t1", 6, done, started, elo, last=f"game {done}: greedy won",
                             played=done))
            # what a worker process and gRPC's C core do: write to descriptor 2 directly
            subprocess.run(["sh", "-c", f"echo stray line {done} from a child >&2"])
            os.write(2, f"C-level line {done}\\n".encode())
            time.sleep(0.25)
    finally:
        display.close()
    print("after the run", file=sys.stderr)
''')

CSI = re.compile(r"\x1b\[([0-9;?]*)([A-Za-z])")


def screen(output: str) -> list[str]:
    """The terminal's lines (scrollback included) after ``output``: text overwrites at the
    cursor; CR, LF, erase line (2K) and cursor up (nA) move it; other sequences change
    nothing that is read here."""
    lines: list[list[str]] = [[]]
    row = col = 0
    pos = 0
    while pos < len(output):
        if m := CSI.match(output, pos):
            args, code = m.groups()
            if code == "A":
                row = max(0, row - int(args or 1))
            elif code == "K" and args == "2":
                lines[row] = []
            pos = m.end()
            continue
        ch = output[pos]
        pos += 1
        if ch == "\r":
            col = 0
        elif ch == "\n":
            row += 1
            col = 0
            while len(lines) <= row:
                lines.append([])
        elif ch >= " ":
            line = lines[row]
            line.extend(" " * (col - len(line) + 1))
            line[col] = ch
            col += 1
    return ["".join(line).rstrip() for line in lines]


def run_on_a_terminal(mode: str) -> list[str]:
    """Run the script with stdin, stdout and stderr on a 100x30 pseudo-terminal; its screen."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")}
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, mode], stdin=follower,
                            stdout=follower, stderr=follower, env={**env, "TERM": "xterm"},
                            start_new_session=True)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: every writer of the terminal is gone
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert proc.wait(timeout=30) == 0
    return screen(b"".join(chunks).decode("utf-8", "replace"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a Linux pseudo-terminal")
def test_writes_from_other_processes_leave_one_block_in_the_scrollback() -> None:
    lines = run_on_a_terminal("start")
    assert sum(line.startswith("Live Elo: provisional") for line in lines) == 1, "\n".join(lines)
    block = next(i for i, line in enumerate(lines) if line.startswith("Live Elo"))
    for n in range(1, 7):  # every stray line is kept whole, once, above the block
        for stray in (f"stray line {n} from a child", f"C-level line {n}"):
            assert lines.count(stray) == 1 and lines.index(stray) < block
    assert "6/6 games" in lines[block - 1]
    assert [line for line in lines if line][-1] == "after the run"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a Linux pseudo-terminal")
def test_the_emulated_screen_shows_the_copies_when_the_display_does_not_take_stderr() -> None:
    """The check above can fail: without ``start`` the same writes leave copies of the block."""
    lines = run_on_a_terminal("no-start")
    assert sum(line.startswith("Live Elo: provisional") for line in lines) > 1
