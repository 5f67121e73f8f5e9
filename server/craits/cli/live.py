"""Live progress of a tournament on stderr: a progress bar and the live-Elo table.

On a terminal, rich redraws the block in place (it knows how many lines the block took, wrapped
lines included, so a narrow terminal or a long bot name leaves no stale lines behind). It can do
so only if nothing else writes to the terminal: a line that a worker process (or gRPC's C core)
wrote straight to file descriptor 2 moved the cursor behind rich's back, and every such line left
a copy of the block ("Live Elo: provisional", ...) in the scrollback. So from ``start`` to
``close`` descriptor 2 is a pipe, inherited by every process started meanwhile, and what comes
through it is printed above the block, a line at a time; rich itself writes to a copy of the
terminal's descriptor. When
stderr is not a terminal (CI logs, pipes), a progress line and the live-Elo table are printed
every tenth of the way instead, so a log shows the standings as they develop, as cutechess's
rating interval does.
"""

from __future__ import annotations

import os
import threading
import time
from typing import IO

from rich.console import Console
from rich.live import Live
from rich.text import Text

from craits.tournament.run.runner import Progress

from .tables import console, live_block, live_elo_table, progress_line, sprt_line

REDRAW_S = 0.2
LOG_STEPS = 10
"""A log gets the standings this many times over a run."""
DRAIN_S = 1.0
"""How long ``close`` waits for the last lines in the pipe (a process that outlives the run may
hold it open for ever: what it writes later is still relayed, below)."""


class LiveDisplay:
    """Renders ``Progress`` snapshots to a console (stderr by default)."""

    def __init__(self, out: Console | None = None, quiet: bool = False,
                 sprt_names: tuple[str, str] | None = None, games_per_deal_set: int = 1) -> None:
        self.console = out or console(stderr=True)
        self.quiet = quiet
        self.sprt_names = sprt_names
        self.per_set = games_per_deal_set
        self._live: Live | None = None
        self._last_draw = 0.0
        self._last_step = -1
        self._saved_fd: int | None = None
        self._relay: threading.Thread | None = None

    def start(self) -> None:
        """On a terminal, take file descriptor 2 until ``close`` (see the module docstring):
        call it before the run starts its worker processes, so that they inherit the pipe."""
        if self.quiet or not self.console.is_terminal or self._saved_fd is not None:
            return
        try:
            tty = os.fdopen(os.dup(self.console.file.fileno()), "w", encoding="utf-8",
                            errors="replace", buffering=1)
        except (OSError, ValueError, AttributeError):  # not a real file: nothing to take over
            return
        self._saved_fd = os.dup(2)
        self.console.file = tty
        read, write = os.pipe()
        os.dup2(write, 2)
        os.close(write)
        self._relay = threading.Thread(target=self._relay_lines, args=(os.fdopen(read, "rb"),),
                                       name="craits-stderr-relay", daemon=True)
        self._relay.start()

    def _relay_lines(self, pipe: IO[bytes]) -> None:
        """Print each line that comes through the pipe above the live block, until every
        writer has closed it."""
        with pipe:
            for raw in pipe:
                self.console.print(Text(raw.decode("utf-8", "replace").rstrip("\n")))

    def __call__(self, p: Progress) -> None:
        """Show one snapshot (rate-limited on a terminal)."""
        if self.quiet:
            return
        if self.console.is_terminal:
            self._redraw(p)
        else:
            self._log(p)

    def close(self) -> None:
        """Leave the last drawing on screen, the cursor on a fresh line below it, and give file
        descriptor 2 back (after the lines still in the pipe)."""
        if self._saved_fd is not None:
            os.dup2(self._saved_fd, 2)  # this process's end of the pipe closes here
            os.close(self._saved_fd)
            self._saved_fd = None
            if self._relay is not None:
                self._relay.join(DRAIN_S)
                self._relay = None
        if self._live is not None:
            self._live.stop()
            self._live = None

    def _redraw(self, p: Progress) -> None:
        now = time.monotonic()
        if self._live is None:
            self._live = Live(console=self.console, auto_refresh=False, transient=False)
            self._live.start()
        elif now - self._last_draw < REDRAW_S and p.done != p.total:
            return
        self._last_draw = now
        self._live.update(live_block(p, self.sprt_names, self.per_set), refresh=True)

    def _log(self, p: Progress) -> None:
        step = p.done * LOG_STEPS // max(1, p.total)
        if step == self._last_step:
            return
        self._last_step = step
        self.console.print(Text(progress_line(p)))
        if p.played:
            self.console.print(live_elo_table(p))
        if p.sprt is not None and self.sprt_names is not None:
            self.console.print(Text(sprt_line(p.sprt, *self.sprt_names, self.per_set)))
