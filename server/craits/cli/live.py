"""Live progress of a tournament on the terminal: a progress bar and the online-Elo table.

On a terminal the block is redrawn in place; when stderr is not a terminal (CI logs, pipes) a
plain line is printed every tenth of the way instead, so logs stay readable.
"""

from __future__ import annotations

import math
import sys
import time
from typing import IO

from craits.tournament.runner import Progress

BAR_WIDTH = 30
TOP_ROWS = 10
REDRAW_S = 0.2


class LiveDisplay:
    """Renders ``Progress`` snapshots to a stream (stderr by default)."""

    def __init__(self, stream: IO[str] | None = None, quiet: bool = False) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.quiet = quiet
        self._lines = 0
        self._last_draw = 0.0
        self._last_tenth = -1

    def __call__(self, p: Progress) -> None:
        """Show one snapshot (rate-limited on a terminal)."""
        if self.quiet:
            return
        if self.tty:
            now = time.monotonic()
            if now - self._last_draw >= REDRAW_S or p.done == p.total:
                self._last_draw = now
                self._redraw(p)
        else:
            tenth = p.done * 10 // max(1, p.total)
            if tenth != self._last_tenth:
                self._last_tenth = tenth
                print(status_line(p), file=self.stream, flush=True)

    def close(self) -> None:
        """Leave the last drawing on screen."""
        self._lines = 0

    def _redraw(self, p: Progress) -> None:
        block = [status_line(p), *elo_lines(p)]
        if self._lines:
            self.stream.write(f"\x1b[{self._lines}F\x1b[J")
        self.stream.write("\n".join(block) + "\n")
        self.stream.flush()
        self._lines = len(block)


def status_line(p: Progress) -> str:
    """``[#####.....]  12/24 games  2.3 games/s  ETA 5s``."""
    filled = round(BAR_WIDTH * p.done / max(1, p.total))
    bar = "#" * filled + "." * (BAR_WIDTH - filled)
    eta = "?" if math.isnan(p.eta_s) else f"{p.eta_s:.0f}s"
    return f"[{bar}] {p.done}/{p.total} games  {p.rate:.2f} games/s  ETA {eta}"


def elo_lines(p: Progress) -> list[str]:
    """The live table: bots by online Elo, best first."""
    ranked = sorted(p.elo.items(), key=lambda kv: -kv[1])[:TOP_ROWS]
    lines = [f"  {'bot':<20} {'live Elo':>8}"]
    lines += [f"  {bot:<20} {rating:>8.0f}" for bot, rating in ranked]
    if p.sprt is not None:
        t = p.sprt
        lines.append(f"  SPRT: {t.decision} (LLR {t.llr:+.2f} in [{t.lower:+.2f}, {t.upper:+.2f}],"
                     f" {t.deal_sets} deal sets, {t.elo:+.0f} Elo)")
    if p.last:
        lines.append(f"  last: {p.last}")
    return lines
