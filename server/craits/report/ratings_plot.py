"""Ratings over time: online Elo after every game, drawn as an inline SVG line chart.

Online Elo is the live rating the runner shows (``tournament.elo``), replayed in schedule order
so the curve is the same however the games were spread over tables. The chart is plain SVG text
made here, so the report needs no plotting library and no script to show it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Final

from craits.ratings.elo import OnlineElo
from craits.ratings.results import ScoredGame

from .html_parts import Html, esc

PALETTE: Final = ("#2458d3", "#d9480f", "#2b8a3e", "#ae3ec9", "#e8590c", "#0c8599",
                  "#c2255c", "#5c940d", "#1864ab", "#862e9c")
WIDTH, HEIGHT = 860, 320
LEFT, RIGHT, TOP, BOTTOM = 52, 190, 14, 34
"""Margins: the legend sits in the right one."""

MOST_POINTS: Final = 2000
"""Points per line at most: a chart 860 units wide shows no more, and a tournament of 100,000
games would otherwise embed 100,000 points per bot."""

Scale = Callable[[float], float]
"""Data value to SVG coordinate."""


def elo_history(results: Sequence[ScoredGame], bots: Sequence[str],
                most: int = MOST_POINTS) -> list[tuple[int, dict[str, float]]]:
    """Each bot's online Elo before any game, then after every game in schedule order, or
    after every k-th game (and the last) where that would be more than ``most`` points: pairs
    of (games played, ratings)."""
    elo = OnlineElo(bots)
    history = [(0, dict(elo.ratings))]
    step = max(1, math.ceil(len(results) / most))
    ordered = sorted(results, key=lambda r: r.game_index)
    for played, result in enumerate(ordered, start=1):
        elo.add(result)
        if played % step == 0 or played == len(ordered):
            history.append((played, dict(elo.ratings)))
    return history


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values (1, 2 or 5 times a power of ten apart) covering [low, high]."""
    raw = max(high - low, 1e-9) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.floor(low / step) * step
    return [first + i * step for i in range(math.ceil((high - first) / step) + 1)]


def ratings_svg(history: Sequence[tuple[int, dict[str, float]]], bots: Sequence[str]) -> Html:
    """The chart: one line per bot, game number across, rating up, legend with final values."""
    values = [h[b] for _, h in history for b in bots] or [0.0]
    ticks = nice_ticks(min(values), max(values))
    y0, y1 = ticks[0], ticks[-1]
    games = max(history[-1][0], 1)

    def x(i: float) -> float:
        return LEFT + (WIDTH - LEFT - RIGHT) * i / games

    def y(v: float) -> float:
        return TOP + (HEIGHT - TOP - BOTTOM) * (y1 - v) / ((y1 - y0) or 1)

    parts = [_grid(ticks, x, y, games)]
    for k, bot in enumerate(bots):
        colour = PALETTE[k % len(PALETTE)]
        points = " ".join(f"{x(i):.1f},{y(h[bot]):.1f}" for i, h in history)
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" '
                     f'points="{points}"><title>{esc(bot)}</title></polyline>')
        ly = TOP + 10 + 20 * k
        parts.append(f'<rect x="{WIDTH - RIGHT + 16}" y="{ly - 9}" width="14" height="4" '
                     f'fill="{colour}"/><text x="{WIDTH - RIGHT + 36}" y="{ly - 3}" '
                     f'font-size="13">{esc(bot)} {history[-1][1][bot]:+.0f}</text>')
    return Html(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
                f'width="100%" role="img" aria-label="online Elo after each game">'
                f'{"".join(parts)}</svg>')


def _grid(ticks: Sequence[float], x: Scale, y: Scale, games: int) -> str:
    """Horizontal lines at the rating ticks, game numbers along the bottom."""
    out = []
    for t in ticks:
        out.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(t):.1f}" y2="{y(t):.1f}" '
                   f'stroke="{"#98a2b3" if t == 0 else "#e4e7ec"}"/>'
                   f'<text x="{LEFT - 6}" y="{y(t) + 4:.1f}" font-size="12" '
                   f'text-anchor="end">{t:+.0f}</text>')
    for g in nice_ticks(0, games, 8):
        if g <= games:
            out.append(f'<text x="{x(g):.1f}" y="{HEIGHT - BOTTOM + 16}" font-size="12" '
                       f'text-anchor="middle">{g:.0f}</text>')
    out.append(f'<text x="{(LEFT + WIDTH - RIGHT) / 2}" y="{HEIGHT - 4}" font-size="12" '
               'text-anchor="middle">games played</text>')
    return "".join(out)
