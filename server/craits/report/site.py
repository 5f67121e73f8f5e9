"""``craits report --html DIR``: a static site of one tournament, readable straight from disk.

``DIR/index.html`` holds the standings, crosstable, LOS matrix, ratings plot and the list of
games; ``DIR/games/game-N.html`` is one self-contained replay viewer per recorded game. Games
are read, replayed and written one at a time, so a long tournament does not have to fit in
memory at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from craits.tournament.store import Store, StoreError

from .frames import game_frames
from .index_page import GameLine, index_page
from .ratings_plot import elo_history, ratings_svg
from .stored import ReportError, StoredGame, iter_games
from .viewer_page import viewer_page

GAMES_DIR = "games"

Progress = Callable[[int, int], None]
"""Called with (games written, games to write)."""


def game_file(index: int) -> str:
    """The viewer page of game ``index``, relative to the site's root."""
    return f"{GAMES_DIR}/game-{index}.html"


def write_site(store: Store, tournament_id: str, out: Path,
               progress: Progress = lambda done, total: None) -> list[Path]:
    """Write the whole report under ``out``; returns the files written, index first."""
    try:
        info = store.tournament(tournament_id)
        config = store.config(tournament_id)
    except StoreError as exc:
        raise ReportError(f"{exc} (see `craits tournament list`)") from None
    results = store.results(tournament_id)
    if not results:
        raise ReportError(f"tournament {tournament_id} has no recorded games yet")
    (out / GAMES_DIR).mkdir(parents=True, exist_ok=True)
    indices = [r.game_index for r in results]
    written, lines = [], []
    for at, game in enumerate(iter_games(store, tournament_id)):
        page = viewer_page(game, game_frames(game), _links(indices, at))
        written.append(_write(out / game_file(game.game_index), page))
        lines.append(game_line(game))
        progress(len(lines), len(indices))
    plot = ratings_svg(elo_history(results, config.bot_names), config.bot_names)
    index = index_page(info, config, store.standings(tournament_id), plot, lines)
    return [_write(out / "index.html", index), *written]


def game_line(game: StoredGame) -> GameLine:
    """The game's row in the list of games."""
    r = game.result
    return GameLine(
        index=game.game_index, meeting=game.job.meeting_index, deal_set=game.job.deal_set,
        rotation=game.job.rotation, seats=r.seats, totals=r.totals, places=r.places,
        hands=sum(1 for e in game.events if e.get("kind") == "hand_end"),
        strikes=sum(r.strikes), forfeits=sum(r.forfeited), href=game_file(game.game_index),
    )


def _links(indices: Sequence[int], at: int) -> dict[str, str]:
    """Links from the viewer page of game ``indices[at]`` to the index and its neighbours."""
    links = {"index": "../index.html"}
    if at > 0:
        links["prev"] = Path(game_file(indices[at - 1])).name
    if at + 1 < len(indices):
        links["next"] = Path(game_file(indices[at + 1])).name
    return links


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path
