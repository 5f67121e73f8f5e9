"""The report's front page: standings, crosstable, LOS, ratings over time, and every game.

Numbers come from ``Standings`` exactly as ``craits tournament show`` prints them; this module
only lays them out. Matrix cells are tinted by how far they are from an even result so the
strong and weak pairings stand out at a glance.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from craits.engine.rules_changes import rules_summary
from craits.ratings.standings import Standings
from craits.tournament.plan.config import TournamentConfig
from craits.tournament.store.database import TournamentInfo

from .html_parts import Html, esc, join, page, table, tag

Cell = Callable[[str, str], Html]
"""A matrix cell maker: (row bot, column bot) to the cell's content."""


@dataclass(frozen=True, slots=True)
class GameLine:
    """What the list of games shows of one game (kept small: a report may list thousands)."""

    index: int
    meeting: int
    deal_set: int
    rotation: int
    seats: tuple[str, ...]
    totals: tuple[int, ...]
    places: tuple[int, ...]
    hands: int
    strikes: int
    forfeits: int
    href: str | None
    """Its viewer page; None when the report has none for it (not written yet)."""
    in_play: bool = False
    """Its deal is still to be played at another seating: no viewer until it has been."""


def index_page(info: TournamentInfo, config: TournamentConfig, standings: Standings,
               plot: Html, games: Sequence[GameLine],
               lists: Sequence[tuple[str, str]] | None = None) -> Html:
    """The whole front page; the list of games is ``games``, or links to the pages of a list
    too long for one page (``lists``: label and address of each)."""
    order = [row.bot for row in standings.rows]
    sections = [
        _panel("Standings", standings_table(standings), _standings_note(standings)),
        _panel("Ratings over time", plot, "Online Elo after each game, in schedule order "
               "(the final ratings above are Bradley-Terry, which does not depend on order)."),
        _panel("Crosstable", crosstable(standings, order),
               "Row bot's pairwise score against the column bot: 1 per game ahead, ½ per tie, "
               "out of the games they shared a table."),
        _panel("Likelihood of superiority", los_matrix(standings, order),
               "Probability that the row bot is really stronger than the column bot "
               "(Student t on the spread between deal sets; 50% everywhere when there are not "
               "enough games)."),
        _games_panel(info, games, lists),
    ]
    header = join([tag("h1", info.name), tag("p", _subtitle(info, config))])
    return page(f"{info.name}: tournament report", header, join(sections))


def _games_panel(info: TournamentInfo, games: Sequence[GameLine],
                 lists: Sequence[tuple[str, str]] | None) -> Html:
    done = info.jobs.get("done", 0)
    note = ("Each linked game opens in a replay viewer: ← → step, PageUp/PageDown (or p/n) "
            f"hand. Games without a link have no viewer yet: `craits report {info.id} --html "
            "DIR --games N,M-K` writes theirs. A game marked “deal in play” gets its viewer "
            "only once every seating of its deal set has been played: the viewer shows every "
            "card, and the other seatings are dealt the same ones.")
    if lists is None:
        return _panel(f"Games ({done})", games_table(games), note)
    items = join(tag("li", tag("a", label, href=href)) for label, href in lists)
    return _panel(f"Games ({done}, in {len(lists)} pages)", tag("ul", items, class_="pages"),
                  note)


def _subtitle(info: TournamentInfo, config: TournamentConfig) -> str:
    done = info.jobs.get("done", 0)
    return (f"tournament {info.id} · {info.status} · {done} of {info.total} games recorded · "
            f"{_deals(info)} · {config.mode}, tables of {config.table_size} · "
            f"rules: {rules_summary(config.rules)}")


def _deals(info: TournamentInfo) -> str:
    """How the deals were made: from a secret key, or from a seed (reproducible by anyone).

    The organiser's seed determines every deal of the tournament, so its number is shown
    only once no game is left to play (skipped games never will be)."""
    if info.seed is None:
        return "secret deals"
    if info.jobs.get("pending", 0) or info.jobs.get("running", 0):
        return "deals from a seed (shown once every game has been played)"
    return f"seed {info.seed}"


def _panel(title: str, content: Html, note: str = "") -> Html:
    parts = [tag("h2", title), content]
    if note:
        parts.append(tag("p", note, class_="note"))
    return tag("section", join(parts), class_="panel")


def _standings_note(s: Standings) -> str:
    return (f"{s.games} games in {s.deal_sets} deal sets. Rating: Bradley-Terry on the Elo "
            f"scale, {s.interval_note}. "
            "Points: lower is better.")


def standings_table(s: Standings) -> Html:
    """Rank, bot, rating with its interval, online Elo, games, points, place, wins, strikes."""
    pct = round(s.confidence * 100)
    head = ["rank", "bot", "rating", f"{pct}% interval", "online Elo", "games", "mean pts",
            "mean place", "wins", "strikes", "forfeits"]
    rows = [
        [r.rank, r.bot, f"{r.rating:+.0f}", r.interval,
         f"{r.online_elo:+.0f}", r.stats.games, f"{r.stats.mean_points:.1f}",
         f"{r.stats.mean_place:.2f}", r.stats.wins, r.stats.strikes, r.stats.forfeits]
        for r in s.rows
    ]
    return table(head, rows, "standings", text={1})


def crosstable(s: Standings, order: Sequence[str]) -> Html:
    """Row against column: pairwise score out of games shared."""
    def cell(a: str, b: str) -> Html:
        if a == b:
            return Html("—")
        rec = s.crosstable[a][b]
        text = f"{rec.score:g}/{rec.games}" if rec.games else "—"
        return _tinted(text, rec.rate if rec.games else 0.5)
    return _matrix(order, cell)


def los_matrix(s: Standings, order: Sequence[str]) -> Html:
    """Row stronger than column, as a percentage."""
    def cell(a: str, b: str) -> Html:
        return Html("—") if a == b else _tinted(f"{s.los[a][b]:.0%}", s.los[a][b])
    return _matrix(order, cell)


def _matrix(order: Sequence[str], cell: Cell) -> Html:
    rows = [[order[i], *(cell(a, b) for b in order)] for i, a in enumerate(order)]
    return table(["", *order], rows, "matrix", text={0})


def _tinted(text: str, rate: float) -> Html:
    """Green above an even result, red below, stronger the further from ½."""
    alpha = min(1.0, abs(rate - 0.5) * 1.6)
    rgb = "43,138,62" if rate >= 0.5 else "201,42,42"
    return tag("span", text, style=f"display:block;background:rgba({rgb},{alpha:.2f});"
               "border-radius:4px;padding:0 4px")


def games_table(games: Sequence[GameLine]) -> Html:
    """One row per game, linking to its viewer where it has one.

    Rows are written as text directly rather than through ``tag`` (which is ~10 times slower):
    a page lists up to 1,000 games, and a big report has a hundred such pages."""
    head = ["game", "meeting", "deal set", "seating", "seats: points (place)", "hands", "faults"]
    names: dict[str, str] = {}
    rows = Html("".join(_game_row(g, names) for g in games))
    empty = table(head, [], "games")
    return Html(empty.replace("<tbody></tbody>", f"<tbody>{rows}</tbody>"))


def _game_row(g: GameLine, names: dict[str, str]) -> str:
    """One ``<tr>`` of the list of games; ``names`` caches each bot's escaped name."""
    label = f"game {g.index}"
    first = f'<a href="{esc(g.href)}">{label}</a>' if g.href else label
    if g.in_play:
        first += _IN_PLAY
    seats = " · ".join(
        f'<span{_WIN if place == 1 else ""}>{names.get(bot) or names.setdefault(bot, esc(bot))}'
        f" {total} ({place})</span>"
        for bot, total, place in zip(g.seats, g.totals, g.places, strict=True))
    return (f'<tr><td class="name">{first}</td><td>{g.meeting}</td><td>{g.deal_set}</td>'
            f'<td>{g.rotation}</td><td class="name">{seats}</td><td>{g.hands}</td>'
            f"<td>{_faults(g)}</td></tr>")


_WIN: Final = ' class="win"'
_IN_PLAY: Final = ' <span class="note">· deal in play</span>'


def _faults(g: GameLine) -> Html:
    counts = ((g.strikes, f"{g.strikes} strikes"), (g.forfeits, f"{g.forfeits} forfeited"))
    words = [text for n, text in counts if n]
    return tag("span", ", ".join(words), class_="warn") if words else Html("")

