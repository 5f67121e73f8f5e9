"""The report in a real browser: headless Chromium opens the files and runs the viewer's script.

Chromium is required, not optional: CI installs it (``.ci/setup``) and a missing browser fails
here rather than skipping, so the viewer cannot silently go untested.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from craits.engine import Game, format_cards
from craits.report.stored import load_game
from craits.tournament.store.database import Store
from tests.chromium import FLAGS, chromium

from .helpers import Tournament
from .pages import Elements

pytestmark = pytest.mark.slow  # a real browser

ONE_SHOT = (*FLAGS, "--virtual-time-budget=2000")
"""Chromium's flags for one read of a page: its scripts get two seconds of virtual time."""


def dump_dom(url: str, profile: Path) -> Elements:
    """The page's DOM after its scripts ran."""
    proc = subprocess.run(
        [chromium(), *ONE_SHOT, f"--user-data-dir={profile}", "--dump-dom", url],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode == 0 and "<html" in proc.stdout, proc.stderr[-2000:]
    return Elements(proc.stdout)


def test_index_shows_the_standings(tournament: Tournament, site: Path, tmp_path: Path) -> None:
    page = dump_dom((site / "index.html").as_uri(), tmp_path)
    with Store.open(tournament.db) as store:
        standings = store.standings(tournament.id)
    rows = page.tables["standings"]
    assert rows[0][:4] == ["rank", "bot", "rating", "95% interval"]
    assert [r[:4] for r in rows[1:]] == [
        [str(s.rank), s.bot, f"{s.rating:+.0f}", s.interval]
        for s in standings.rows]


def test_viewer_renders_the_table_at_a_move(tournament: Tournament, site: Path,
                                            tmp_path: Path) -> None:
    with Store.open(tournament.db) as store:
        game = load_game(store, tournament.id, 0)
    live = Game.new(game.rules, len(game.seats), game.seed)
    for decision in game.decisions[:40]:
        live.apply(decision.move)
    page = dump_dom((site / "games" / "game-0.html").as_uri() + "#move=40", tmp_path)
    assert page.by_id["seats"] is not None
    for seat in range(len(game.seats)):
        shown = page.by_id[f"seat-{seat}"]
        assert shown["data-cards"] == format_cards(sorted(live.hands[seat]))
        assert game.seats[seat] in page.text[f"seat-{seat}"]
    assert page.by_id["top"]["data-card"] == str(live.discard[-1])
    assert "move 40" in page.text["pos"]
    assert f"move 40: {game.seats[game.decisions[39].seat]}" in page.text["log"]


def test_viewer_ends_with_every_hand_scored(tournament: Tournament, site: Path,
                                            tmp_path: Path) -> None:
    with Store.open(tournament.db) as store:
        result = store.results(tournament.id)[2]
    page = dump_dom((site / "games" / "game-2.html").as_uri() + "#step=999999", tmp_path)
    assert "game over" in page.text["pos"]
    scores = page.tables["scores"]
    assert [row[0] for row in scores[1:-1]] == [str(n) for n in range(1, 16)]
    assert scores[-1] == ["total", *map(str, result.totals)]
