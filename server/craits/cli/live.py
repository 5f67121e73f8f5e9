"""Live progress of a tournament on stderr: a progress bar and the live-Elo table.

On a terminal, rich redraws the block in place (it knows how many lines the block took, wrapped
lines included, so a narrow terminal or a long bot name leaves no stale lines behind). When
stderr is not a terminal (CI logs, pipes), a progress line and the live-Elo table are printed
every tenth of the way instead, so a log shows the standings as they develop, as cutechess's
rating interval does.
"""

from __future__ import annotations

import time

from rich.console import Console
from rich.live import Live
from rich.text import Text

from craits.tournament.runner import Progress

from .tables import console, live_block, live_elo_table, progress_line, sprt_line

REDRAW_S = 0.2
LOG_STEPS = 10
"""A log gets the standings this many times over a run."""


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

    def __call__(self, p: Progress) -> None:
        """Show one snapshot (rate-limited on a terminal)."""
        if self.quiet:
            return
        if self.console.is_terminal:
            self._redraw(p)
        else:
            self._log(p)

    def close(self) -> None:
        """Leave the last drawing on screen, the cursor on a fresh line below it."""
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
