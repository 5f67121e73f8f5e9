"""``craits report --html``: the files, their escaping, every viewer state against the engine."""

from __future__ import annotations

import re
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from craits.engine import Game, format_cards
from craits.engine.cards import SUIT_LETTERS
from craits.report import site
from craits.report.frames import game_frames
from craits.report.stored import iter_games
from craits.tournament.store.database import Store

from .helpers import HOSTILE_NAME, Run, Tournament
from .pages import Elements, fold

Craits = Callable[..., Run]


def test_report_writes_an_index_and_one_viewer_per_game(
    tournament: Tournament, craits: Craits, tmp_path: Path
) -> None:
    out = tmp_path / "deep" / "report"
    run = craits("report", tournament.id, "--html", out, "--db", tournament.db)
    assert run.status == 0, run.err
    assert run.out == f"{out / 'index.html'}\n"
    assert sorted(p.name for p in (out / "games").iterdir()) == [
        f"game-{i}.html" for i in range(tournament.games)]


def test_report_errors_are_usage_errors(tournament: Tournament, craits: Craits,
                                        tmp_path: Path) -> None:
    run = craits("report", "nosuch", "--html", tmp_path, "--db", tournament.db)
    assert run.status == 2 and "no tournament 'nosuch'" in run.err
    run = craits("report", tournament.id, "--db", tournament.db)
    assert run.status == 2 and "--html" in run.err


def test_every_name_is_escaped(site: Path) -> None:
    escaped = "&lt;script&gt;alert(&quot;pwn&quot;)&lt;/script&gt; &amp; &lt;b&gt;friends&lt;/b&gt;"
    for page in [site / "index.html", *(site / "games").iterdir()]:
        text = page.read_text(encoding="utf-8")
        assert HOSTILE_NAME not in text and "<b>friends" not in text, page
        assert escaped in text, page
        assert text.count("<script") == text.count("</script>") <= 2


def test_pages_fetch_nothing(site: Path) -> None:
    for page in [site / "index.html", *(site / "games").iterdir()]:
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"<link|\ssrc=|@import|url\(|fetch\(", text), page
        assert set(re.findall(r"https?://[^\s\"'<>]+", text)) <= {"http://www.w3.org/2000/svg"}


def test_index_has_standings_matrices_plot_and_games(tournament: Tournament, site: Path) -> None:
    page = Elements((site / "index.html").read_text(encoding="utf-8"))
    with Store.open(tournament.db) as store:
        standings = store.standings(tournament.id)
    rows = page.tables["standings"][1:]
    assert [(int(r[0]), r[1], r[2]) for r in rows] == [
        (s.rank, s.bot, f"{s.rating:+.0f}") for s in standings.rows]
    order = [s.bot for s in standings.rows]
    assert [r[0] for r in page.tables["matrix"][1:4]] == order
    games = page.tables["games"][1:]
    assert [g[0] for g in games] == [f"game {i}" for i in range(tournament.games)]
    text = (site / "index.html").read_text(encoding="utf-8")
    assert text.count("<polyline") == 3 and "games played" in text
    for i in range(tournament.games):
        assert f'href="games/game-{i}.html"' in text


def test_every_viewer_state_matches_the_engine(tournament: Tournament) -> None:
    with Store.open(tournament.db) as store:
        games = list(iter_games(store, tournament.id))
    for game in games:
        data = game_frames(game)
        states = fold(data["frames"])
        live, applied = Game.new(game.rules, len(game.seats), game.seed), 0
        ends = [s for s in states if s["k"] == "end"]
        assert len(ends) == 15 == len(data["hands"])
        assert [s["n"] for s in states if s["k"] != "end"] == list(
            range(len(game.decisions) + 1))
        for state in states:
            while applied < state["n"]:
                live.apply(game.decisions[applied].move)
                applied += 1
            if state["k"] != "end":
                assert state["h"] == [format_cards(sorted(h)) for h in live.hands]
                assert state["top"] == str(live.discard[-1])
                assert (state["su"], state["cnt"], state["jk"], state["kg"], state["dir"]) == (
                    SUIT_LETTERS[live.active_suit], live.count, live.jack_penalty,
                    live.king_left, live.direction)
                assert state["tot"] == live.totals and state["ff"] == live.forfeits
        assert live.outcome is not None
        assert states[-1]["k"] == "over" and states[-1]["tot"] == list(game.result.totals)
        assert [h["scores"] for h in data["hands"]] == [list(s) for s in live.outcome.hand_scores]


def test_a_long_list_of_games_is_paginated_and_viewers_are_written_on_demand(
    tournament: Tournament, craits: Craits, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(site, "LIST_PAGE", 2)
    monkeypatch.setattr(site, "ALL_PAGES", 2)
    out = tmp_path / "big"
    run = craits("report", tournament.id, "--html", out, "--db", tournament.db)
    assert run.status == 0, run.err
    assert sorted(p.name for p in (out / "games").iterdir()) == ["list-0.html", "list-1.html"]
    index = (out / "index.html").read_text(encoding="utf-8")
    assert 'href="games/list-0.html"' in index and 'href="games/list-1.html"' in index
    assert "games 0 to 1" in index and "games 2 to 2" in index
    first = Elements((out / "games" / "list-0.html").read_text(encoding="utf-8"))
    assert [g[0] for g in first.tables["games"][1:]] == ["game 0", "game 1"]
    assert "href" not in (out / "games" / "list-0.html").read_text(encoding="utf-8").split(
        "<table")[1]
    run = craits("report", tournament.id, "--html", out, "--games", "1", "--db", tournament.db)
    assert run.status == 0, run.err
    assert (out / "games" / "game-1.html").exists() and not (out / "games" / "game-0.html").exists()
    listed = (out / "games" / "list-0.html").read_text(encoding="utf-8")
    assert 'href="game-1.html"' in listed and 'href="game-0.html"' not in listed
    run = craits("report", tournament.id, "--html", out, "--games", "none", "--db", tournament.db)
    assert run.status == 0 and 'href="game-1.html"' in (out / "games" / "list-0.html").read_text(
        encoding="utf-8")


@pytest.mark.parametrize(("games", "fragment"), [
    ("9", "game 9 is not recorded (recorded games: 0-2)"),
    ("2-1", "'2-1': a range goes from a number to a larger one"),
    ("x", "'x' is not a game number"),
])
def test_games_that_cannot_be_written_are_usage_errors(
    tournament: Tournament, craits: Craits, tmp_path: Path, games: str, fragment: str
) -> None:
    run = craits("report", tournament.id, "--html", tmp_path, "--games", games,
                 "--db", tournament.db)
    assert run.status == 2 and fragment in run.err, run.err


def test_show_and_the_index_read_no_game_record(tournament: Tournament, craits: Craits,
                                                tmp_path: Path) -> None:
    db = tmp_path / "damaged.sqlite"
    shutil.copyfile(tournament.db, db)
    with sqlite3.connect(db) as con:
        con.execute("UPDATE games SET record = X'00'")
    con.close()
    assert craits("tournament", "show", tournament.id, "--db", db).status == 0
    assert craits("tournament", "show", tournament.id, "--csv", "--db", db).status == 0
    run = craits("report", tournament.id, "--html", tmp_path / "site", "--games", "none",
                 "--db", db)
    assert run.status == 0, run.err
