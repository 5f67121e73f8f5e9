"""What the tournament commands print, as rich renderables: standings, crosstable, the SPRT line,
the live display's block and the list of stored tournaments.

rich measures every table against the console it is printed on, so a long bot name or a narrow
terminal wraps inside a cell and the columns stay aligned; on a pipe or in a log the console
is 80 columns (or ``$COLUMNS``) and uncoloured. Consoles are made with markup off, so a bot
named ``[red]`` prints as typed.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from rich import box
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.padding import Padding
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from craits.ratings.pair_wld import WinLossDraw
from craits.ratings.sprt import SprtResult
from craits.ratings.standings import Standing, Standings
from craits.tournament.run.runner import Progress
from craits.tournament.store.database import TournamentInfo

LIVE_ROWS = 10
"""Bots the live table shows (the best by live Elo)."""

def console(stderr: bool = False) -> Console:
    """A console on stdout (or stderr) that prints text as given: no markup, no emoji codes,
    no guessed highlighting; rich still finds the width and whether to colour."""
    return Console(stderr=stderr, markup=False, emoji=False, highlight=False)


NARROWEST_NAME = 12
"""Below this width for the bot column, the standings are written bot by bot instead."""


@dataclass(frozen=True, slots=True)
class StandingsView:
    """The final standings, laid out for the console they are printed on.

    A table when the number columns and a bot column of at least ``NARROWEST_NAME`` fit (long
    names fold inside their cell); on a narrower console, one block per bot, which wraps as
    text does. Either way nothing runs past the console's width.
    """

    standings: Standings

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        s = self.standings
        rows = [_numbers(s, r) for r in s.rows]
        widths = [max(len(h), *(len(row[k]) for row in rows))
                  for k, h in enumerate(_headers(s))]
        fixed = sum(widths) + len(widths) + 2  # a space after each column, and the edges
        name = min(NARROWEST_NAME, max(len(r.bot) for r in s.rows))
        yield Text(f"Final standings: {_rating_words(s)}")
        if options.max_width - fixed >= name:
            yield _standings_grid(s, rows)
        else:
            yield from _standings_blocks(s, rows)
        yield Text(f"{s.games} games in {s.deal_sets} deal sets; points: the mean final total "
                   "per game, lower is better")


def _rating_words(s: Standings) -> str:
    return f"rating is Bradley-Terry on the Elo scale (0 = the field); {s.interval_note}"


def _headers(s: Standings) -> list[str]:
    return ["#", "rating", f"{round(s.confidence * 100)}%", "games", "points", "wins", "strikes",
            "forfeits"]


def _numbers(s: Standings, r: Standing) -> list[str]:
    """A bot's row without its name, in the order of ``_headers``."""
    st = r.stats
    return [str(r.rank), f"{r.rating:+.0f}", r.interval,
            str(st.games), f"{st.mean_points:.1f}", str(st.wins), str(st.strikes),
            str(st.forfeits)]


def _standings_grid(s: Standings, rows: list[list[str]]) -> Table:
    table = Table(box=box.SIMPLE_HEAD, collapse_padding=True, pad_edge=False)
    headers = _headers(s)
    table.add_column(headers[0], justify="right", no_wrap=True)
    table.add_column("bot", overflow="fold")
    for header in headers[1:]:
        table.add_column(header, justify="right", no_wrap=True)
    for r, numbers in zip(s.rows, rows, strict=True):
        forfeits = Text(numbers[-1], style="bold red" if r.stats.forfeits else "")
        table.add_row(numbers[0], Text(r.bot), *numbers[1:-1], forfeits)
    return table


def _standings_blocks(s: Standings, rows: list[list[str]]) -> Iterator[RenderableType]:
    headers = _headers(s)
    for r, numbers in zip(s.rows, rows, strict=True):
        yield Text(f"{numbers[0]}. {r.bot}", overflow="fold")
        pairs = zip(headers[1:], numbers[1:], strict=True)
        yield Padding(Text(", ".join(f"{h} {v}" for h, v in pairs)), (0, 0, 0, 3))


def standings_table(s: Standings) -> StandingsView:
    """The final table, best first: rating and interval, then what each bot did (``points``
    and ``place`` are means per game)."""
    return StandingsView(s)


def crosstable_table(order: Sequence[str], records: Mapping[str, Mapping[str, WinLossDraw]]
                     ) -> Group:
    """Head to head: row A, column n (the bot ranked n) holds A's W-L-D against it."""
    table = Table(box=box.SIMPLE_HEAD, collapse_padding=True, pad_edge=False)
    table.add_column("#", justify="right")
    table.add_column("bot", overflow="fold")
    for rank in range(1, len(order) + 1):
        table.add_column(str(rank), justify="right")
    for rank, a in enumerate(order, start=1):
        cells = ["-" if b == a else str(records[a][b]) for b in order]
        table.add_row(str(rank), Text(a), *cells)
    title = "Crosstable: each row's wins-losses-draws against the bot ranked n (column n)"
    return Group(Text(title), table)


DECISIONS = {"H1": "H1 accepted", "H0": "H0 accepted", "continue": "undecided"}


def sprt_line(v: SprtResult, a: str, b: str, games_per_deal_set: int) -> str:
    """The sequential test as cutechess and fastchess users read it: W-L-D (of deal sets here,
    the test's observations), the LLR with its bounds, and what was decided after how much."""
    games = v.deal_sets * games_per_deal_set
    return (
        f"SPRT {a} vs {b}: {DECISIONS.get(v.decision, v.decision)} after {v.deal_sets} deal "
        f"sets ({games} games); deal sets W-L-D {v.wins}-{v.losses}-{v.draws}; "
        f"LLR {v.llr:+.2f} (bounds {v.lower:+.2f}, {v.upper:+.2f}); {v.elo:+.0f} Elo"
    )


def sprt_meaning(v: SprtResult, a: str, b: str) -> str:
    """What the decision says about the two bots, in words."""
    if v.decision == "H1":
        return f"H1: {a} is stronger than {b} (by at least elo1)"
    if v.decision == "H0":
        return f"H0: {a} is not stronger than {b} (by more than elo0)"
    return "no decision yet: the LLR is between the bounds"


def list_status(info: TournamentInfo, verdict: SprtResult | None) -> str:
    """A tournament's status for ``list``: a match the SPRT stopped says so."""
    if verdict is not None and verdict.decision != "continue":
        return f"decided ({verdict.decision}) after {info.jobs.get('done', 0)} games"
    return info.status


def tournaments_table(infos: Sequence[TournamentInfo],
                      verdicts: Mapping[str, SprtResult | None]) -> Table:
    """``craits tournament list``: one row per tournament, oldest first."""
    table = Table(box=box.SIMPLE_HEAD, collapse_padding=True, pad_edge=False)
    table.add_column("id", no_wrap=True)
    table.add_column("status", no_wrap=True)
    table.add_column("games", justify="right", no_wrap=True)
    table.add_column("created (UTC)", no_wrap=True)
    table.add_column("name", overflow="fold")
    for i in infos:
        planned = i.total - i.jobs.get("skipped", 0)
        table.add_row(i.id, list_status(i, verdicts.get(i.id)),
                      f"{i.jobs.get('done', 0)}/{planned}", _minute(i.created), Text(i.name))
    return table


def _minute(stamp: str) -> str:
    """``2026-12-01T20:14:22.277+00:00`` as ``2026-12-01 20:14`` (UTC, as stored)."""
    return stamp[:16].replace("T", " ")


def progress_line(p: Progress) -> str:
    """``12/24 games  2.30 games/s  ETA 5s``."""
    eta = "?" if math.isnan(p.eta_s) else f"{p.eta_s:.0f}s"
    return f"{p.done}/{p.total} games  {p.rate:.2f} games/s  ETA {eta}"


def live_elo_table(p: Progress) -> Group:
    """The bots by live (online) Elo, best first: a running estimate, not the final rating."""
    table = Table(box=box.SIMPLE_HEAD, collapse_padding=True, pad_edge=False)
    table.add_column("bot", overflow="fold")
    table.add_column("live Elo", justify="right")
    ranked = sorted(p.elo.items(), key=lambda kv: (-kv[1], kv[0]))[:LIVE_ROWS]
    for bot, rating in ranked:
        table.add_row(Text(bot), f"{rating:+.0f}")
    return Group(Text("Live Elo: provisional; the final ratings come at the end"), table)


def live_block(p: Progress, sprt_names: tuple[str, str] | None = None,
               games_per_deal_set: int = 1) -> RenderableType:
    """What the live display shows on a terminal: progress, live Elo, the SPRT, the last game."""
    bar = Table.grid(expand=True, padding=(0, 1))
    bar.add_column(ratio=1)
    bar.add_column(no_wrap=True)
    bar.add_row(ProgressBar(total=max(1, p.total), completed=p.done), progress_line(p))
    parts: list[RenderableType] = [bar, live_elo_table(p)]
    if p.sprt is not None and sprt_names is not None:
        parts.append(Text(sprt_line(p.sprt, *sprt_names, games_per_deal_set)))
    if p.last:
        parts.append(Text(f"last: {p.last}", overflow="fold"))
    return Group(*parts)
