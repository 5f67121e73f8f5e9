"""``craits report --html DIR``: a static site of one tournament, readable straight from disk.

``DIR/index.html`` holds the standings, crosstable, LOS matrix, ratings plot and the list of
games; ``DIR/games/game-N.html`` is one self-contained replay viewer per game. A tournament may
have 100,000 games, so what the index needs comes from the stored results and outcomes alone
(no game record is read for it), the list of games is split into pages of ``LIST_PAGE`` rows
(``games/list-K.html``) when it is longer than one, and a viewer is written only for the games
asked for: every game of a tournament of at most ``ALL_PAGES`` games unless told otherwise,
else none until named (``--games``). The list links each game whose viewer exists in ``DIR``,
whichever run wrote it, so viewers can be added later, a few at a time. Games are read,
replayed and written one at a time, so memory does not grow with the tournament.

A report may be written, and published, while the tournament is still being played. A viewer
shows every card of its game, and every seating of a duplicate deal set is dealt the same cards
(from one seed, with a public engine), so a game whose deal is still to be played at another
seating (``Store.deals_in_play``) gets no viewer and no link until that seating has been
played; a viewer of such a game left in ``DIR`` by an older version is removed. The site shows
no seed of such a game anywhere (the list of games has none), nor the tournament's own seed
while games remain. Fault texts show paths relative to the store (``published``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Final

from craits.ratings.results import ScoredGame
from craits.ratings.standings import compute_standings
from craits.tournament.store.database import Store, StoreError

from .frames import game_frames
from .html_parts import Html, join, page, tag
from .index_page import GameLine, games_table, index_page
from .published import public_game, store_roots
from .ratings_plot import elo_history, ratings_svg
from .stored import ReportError, iter_games
from .viewer_page import viewer_page

GAMES_DIR: Final = "games"
LIST_PAGE: Final = 1000
"""Games listed per page of the list of games."""
ALL_PAGES: Final = 1000
"""Up to this many recorded games, every game gets its viewer unless told otherwise."""

Progress = Callable[[int, int], None]
"""Called with (game pages written, game pages to write)."""
Note = Callable[[str], None]
"""Called with a sentence for the organiser (games held back, and why)."""


def game_file(index: int) -> str:
    """The viewer page of game ``index``, relative to the site's root."""
    return f"{GAMES_DIR}/game-{index}.html"


def list_file(number: int) -> str:
    """Page ``number`` (from 0) of the list of games, relative to the site's root."""
    return f"{GAMES_DIR}/list-{number}.html"


def write_site(store: Store, tournament_id: str, out: Path,
               progress: Progress = lambda done, total: None,
               games: Collection[int] | None = None,
               note: Note = lambda text: None) -> list[Path]:
    """Write the report under ``out``; returns the files written, index first.

    ``games``: the games to write a viewer for (None: every game when there are at most
    ``ALL_PAGES``, else none). A named game that is not recorded is a ``ReportError``; one
    whose deal is still to be played at another seating is left out, and ``note`` says so.
    """
    try:
        info = store.tournament(tournament_id)
        config = store.config(tournament_id)
    except StoreError as exc:
        raise ReportError(f"{exc} (see `craits tournament list`)") from None
    results = store.results(tournament_id)
    if not results:
        raise ReportError(f"tournament {tournament_id} has no recorded games yet")
    in_play = store.deals_in_play(tournament_id)  # after the results: see export_rows
    indices = [r.game_index for r in results]
    chosen = _chosen(indices, games)
    held = [i for i in chosen if i in in_play]
    if held:
        note(_held_note(held, in_play))
    chosen = [i for i in chosen if i not in in_play]
    (out / GAMES_DIR).mkdir(parents=True, exist_ok=True)
    _remove_viewers(out, in_play)
    roots = store_roots(store.file)
    written = list(_viewers(store, tournament_id, out, chosen, progress, roots))
    lines = _lines(results, store.hands_played(tournament_id), out, in_play)
    lists = _list_pages(lines, info.name, out)
    plot = ratings_svg(elo_history(results, config.bot_names), config.bot_names)
    standings = compute_standings(results, config.bot_names)  # as show
    index = index_page(info, config, standings, plot,
                       lines if not lists else (), _list_links(lines) if lists else None)
    return [_write(out / "index.html", index), *lists, *written]


def _chosen(indices: Sequence[int], games: Collection[int] | None) -> list[int]:
    """The recorded games to write a viewer for, in schedule order."""
    if games is None:
        return list(indices) if len(indices) <= ALL_PAGES else []
    recorded = set(indices)
    missing = sorted(set(games) - recorded)
    if missing:
        raise ReportError(f"game {missing[0]} is not recorded (recorded games: "
                          f"{_ranges(indices)})")
    return sorted(games)


def _ranges(indices: Sequence[int]) -> str:
    """``0-99, 120, 200-210``: a short description of a sorted list of numbers."""
    spans: list[list[int]] = []
    for i in indices:
        if spans and i == spans[-1][1] + 1:
            spans[-1][1] = i
        else:
            spans.append([i, i])
    text = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in spans[:5])
    return text + (", ..." if len(spans) > 5 else "")


def _held_note(held: Sequence[int], in_play: Mapping[int, Sequence[int]]) -> str:
    """Why some games get no viewer: which of their deals' seatings are still to come."""
    to_come = sorted({g for i in held for g in in_play[i]})
    return (f"{len(held)} recorded game(s) get no viewer yet ({_ranges(held)}): games "
            f"{_ranges(to_come)} will be dealt the same cards and have not been played; "
            "write the report again once they have")


def _remove_viewers(out: Path, in_play: Collection[int]) -> None:
    """Remove viewers of games whose deal is still to be played (an older version wrote
    them): the site is often copied or served as a whole directory."""
    for index in in_play:
        (out / game_file(index)).unlink(missing_ok=True)


def _viewers(store: Store, tid: str, out: Path, chosen: Sequence[int],
             progress: Progress, roots: Sequence[str]) -> Iterator[Path]:
    """Each chosen game replayed and written, one at a time, with the organiser's paths made
    relative to the store (``roots``)."""
    for at, game in enumerate(iter_games(store, tid, chosen)):
        game = public_game(game, roots)
        page_html = viewer_page(game, game_frames(game), _links(chosen, at))
        yield _write(out / game_file(game.game_index), page_html)
        progress(at + 1, len(chosen))


def _lines(results: Sequence[ScoredGame], hands: dict[int, int], out: Path,
           in_play: Collection[int] = ()) -> list[GameLine]:
    """Every recorded game's row in the list, linked when its viewer is in ``out`` (never
    while its deal is in play)."""
    shown = {p.name for p in (out / GAMES_DIR).glob("game-*.html")}
    return [game_line(r, hands.get(r.game_index, 0),
                      f"game-{r.game_index}.html" in shown and r.game_index not in in_play,
                      r.game_index in in_play)
            for r in results]


def game_line(result: ScoredGame, hands: int, linked: bool = True,
              in_play: bool = False) -> GameLine:
    """The game's row in the list of games (from its result: no record is read)."""
    r = result
    return GameLine(
        index=r.game_index, meeting=r.meeting_index, deal_set=r.deal_set, rotation=r.rotation,
        seats=r.seats, totals=r.totals, places=r.places, hands=hands, strikes=sum(r.strikes),
        forfeits=sum(r.forfeited), href=game_file(r.game_index) if linked else None,
        in_play=in_play,
    )


def _list_pages(lines: Sequence[GameLine], name: str, out: Path) -> list[Path]:
    """The list of games in pages of ``LIST_PAGE``, when it does not fit on the index."""
    if len(lines) <= LIST_PAGE:
        return []
    chunks = [lines[i:i + LIST_PAGE] for i in range(0, len(lines), LIST_PAGE)]
    written = []
    for number, chunk in enumerate(chunks):
        links = [tag("a", "index", href="../index.html")]
        if number > 0:
            links.append(tag("a", "previous", href=Path(list_file(number - 1)).name))
        if number + 1 < len(chunks):
            links.append(tag("a", "next", href=Path(list_file(number + 1)).name))
        title = f"games {chunk[0].index} to {chunk[-1].index}"
        header = join([tag("h1", name), tag("p", f"{title} · "), Html(" · ".join(links))])
        rows = [_from_list(line) for line in chunk]
        written.append(_write(out / list_file(number),
                              page(f"{name}: {title}", header, games_table(rows))))
    return written


def _from_list(line: GameLine) -> GameLine:
    """A row as a list page (in ``games/``) links it: relative to that directory."""
    if line.href is None:
        return line
    return replace(line, href=Path(line.href).name)


def _list_links(lines: Sequence[GameLine]) -> list[tuple[str, str]]:
    """(label, href) of each page of the list of games."""
    return [(f"games {chunk[0].index} to {chunk[-1].index}", list_file(number))
            for number, chunk in enumerate(
                lines[i:i + LIST_PAGE] for i in range(0, len(lines), LIST_PAGE))]


def _links(indices: Sequence[int], at: int) -> dict[str, str]:
    """Links from the viewer page of game ``indices[at]`` to the index and its neighbours
    (among the viewers this run writes)."""
    links = {"index": "../index.html"}
    if at > 0:
        links["prev"] = Path(game_file(indices[at - 1])).name
    if at + 1 < len(indices):
        links["next"] = Path(game_file(indices[at + 1])).name
    return links


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path
