"""One game's replay page: the game's frames embedded as JSON, the shared viewer script inline.

Each page stands alone (Chromium will not ``fetch()`` a ``file://`` URL, so nothing is loaded
at run time): the data sits in a ``<script type="application/json">`` element and the script
draws it. The result table is plain HTML, so the page still says who won without scripts.
"""

from __future__ import annotations

from typing import Any

from craits.engine.rules_changes import rules_summary

from .assets import VIEWER_JS
from .html_parts import Html, embed_json, join, page, table, tag
from .stored import StoredGame
from .terminal import fault_line

CONTROLS = (("first", "start"), ("prevhand", "« hand"), ("prev", "‹ prev"),
            ("next", "next ›"), ("nexthand", "hand »"), ("last", "end"))
FACTS = (("suit", "active suit"), ("count", "count"), ("jacks", "jacks"), ("king", "king"),
         ("dir", "direction"), ("phase", "phase"), ("stock", "stock"), ("discard", "discard"))


def viewer_page(game: StoredGame, frames: dict[str, Any], links: dict[str, str]) -> Html:
    """The page of ``game``; ``links`` maps ``index``, ``prev`` and ``next`` to their pages."""
    title = f"Game {game.game_index}: {', '.join(game.seats)}"
    header = join([tag("h1", title), tag("p", _subtitle(game)), tag("p", _nav(links))])
    body = join([_controls(), _board(), _result(game), embed_json(frames, "game-data")])
    return page(f"{title} · {game.tournament_name}", header, body, VIEWER_JS)


def _subtitle(game: StoredGame) -> str:
    job = game.job
    return (f"{game.tournament_name} ({game.tournament_id}) · meeting {job.meeting_index}, "
            f"deal set {job.deal_set}, seating {job.rotation} · seed {game.seed} · "
            f"rules: {rules_summary(game.rules)}")


def _nav(links: dict[str, str]) -> Html:
    names = {"index": "↑ standings", "prev": "← previous game", "next": "next game →"}
    return Html(" · ".join(tag("a", names[k], href=v) for k, v in links.items()))


def _controls() -> Html:
    buttons = [tag("button", text, id=key, type="button") for key, text in CONTROLS]
    slider = Html('<input id="slider" type="range" min="0" value="0" aria-label="step">')
    return tag("section", join([*buttons, slider, tag("span", "", id="pos")]),
               class_="panel controls")


def _board() -> Html:
    facts = join(join([tag("dt", label), tag("dd", "", id=key)]) for key, label in FACTS)
    pile = tag("div", join([tag("div", "", id="top"), tag("dl", facts)]), class_="pile")
    felt = tag("div", join([pile, tag("div", "", id="seats")]), class_="felt")
    side = tag("div", join([
        tag("section", join([tag("h2", "This step"), tag("ul", "", id="log")]), class_="panel"),
        tag("section", join([tag("h2", "Hand scores"), tag("table", "", id="scores")]),
            class_="panel"),
    ]))
    return tag("div", join([felt, side]), class_="board")


def _result(game: StoredGame) -> Html:
    r = game.result
    order = sorted(range(len(r.seats)), key=lambda i: (r.places[i], i))
    rows = [[r.places[i], i, r.seats[i], r.totals[i], r.strikes[i],
             "yes" if r.forfeited[i] else ""] for i in order]
    parts = [tag("h2", "Result"),
             table(["place", "seat", "bot", "points", "strikes", "forfeited"], rows, "result",
                   text={2})]
    parts += [tag("p", fault_line(f, game.seats).strip(), class_="note warn")
              for f in game.faults]
    return tag("section", join(parts), class_="panel")

