"""A contestant's versions over time: rating history and recent games, from recorded games.

The curve is the online Elo the static report plots (``craits.report.ratings_plot``), replayed
over the ladder's games in the order they were recorded, so a bot's page and a tournament's
report draw ratings the same way and with the same code; the board's published ratings are
the calibrated fit, which the plot does not replace. Only recorded games are read, and the
ladder records a game when it is over: nothing here can come from a game in play.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from craits.ratings.results import ScoredGame
from craits.report.html_parts import Html
from craits.report.ratings_plot import elo_history, ratings_svg


@dataclass(frozen=True, slots=True)
class RecentGame:
    """One finished game of a version, as its bot's page lists it."""

    game: int
    version: int
    """The version's number."""
    seat: int
    place: int
    players: int
    points: int
    opponents: tuple[str, ...]


def rating_plot(games: Sequence[ScoredGame], labels: Mapping[str, str]) -> Html | None:
    """The SVG of the versions in ``labels`` (a seat's id in the games to the name shown,
    ``v1``, ``v2``...), rated against the whole field; None when none of them has played."""
    played = {seat for g in games for seat in g.seats}
    shown = [seat for seat in labels if seat in played]
    if not shown:
        return None
    field = sorted(played)
    history = [(n, {labels[s]: ratings[s] for s in shown})
               for n, ratings in elo_history(games, field)]
    return ratings_svg(history, [labels[s] for s in shown])


def recent_games(games: Sequence[ScoredGame], numbers: Mapping[str, int],
                 names: Mapping[str, str], most: int = 20) -> list[RecentGame]:
    """The latest ``most`` games of the versions in ``numbers`` (seat id to version number),
    newest first; ``names`` gives every seat id's public name (``alice v2``)."""
    out: list[RecentGame] = []
    for game in sorted(games, key=lambda g: g.game_index, reverse=True):
        for seat, who in enumerate(game.seats):
            if who in numbers:
                others = tuple(names.get(s, s) for k, s in enumerate(game.seats) if k != seat)
                out.append(RecentGame(game.game_index, numbers[who], seat, game.places[seat],
                                      len(game.seats), game.totals[seat], others))
        if len(out) >= most:
            break
    return out[:most]
