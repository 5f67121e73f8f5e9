"""What the tournament commands print, at 60, 80 and 120 columns with 26-character bot names.

rich's recording console renders exactly what a terminal of that width would show; nothing may
run past the width, and every column a reader needs must be there.
"""

import io

import pytest
from rich.console import Console, RenderableType

from craits.cli.live import LOG_STEPS, LiveDisplay
from craits.cli.tables import (
    crosstable_table,
    live_block,
    sprt_line,
    standings_table,
    tournaments_table,
)
from craits.ratings.pair_wld import pair_records
from craits.ratings.results import ScoredGame
from craits.ratings.sprt import SprtResult
from craits.ratings.standings import compute_standings
from craits.tournament.run.runner import Progress
from craits.tournament.store.database import TournamentInfo

NAMES = ("a_very_long_bot_name_no_1x", "another_long_bot_name_no_2", "third_long_bot_name_here_3")
WIDTHS = (60, 80, 120)


def results(deal_sets: int = 2) -> list[ScoredGame]:
    """Three seatings of each deal set; the third bot forfeits in the very first game."""
    games = []
    for index in range(3 * deal_sets):
        turn = index % 3
        seats = NAMES[turn:] + NAMES[:turn]
        games.append(ScoredGame(index, 0, index // 3, turn, seats, (10, 20, 30), (1, 2, 3),
                                (0, 0, 1), (False, False, index == 0)))
    return games


def render(width: int, *renderables: RenderableType) -> list[str]:
    out = Console(record=True, width=width, file=io.StringIO(), markup=False, highlight=False)
    for renderable in renderables:
        out.print(renderable)
    return out.export_text().splitlines()


def progress() -> Progress:
    elo = {name: 10.0 * k for k, name in enumerate(NAMES)}
    return Progress("t1", 24, 12, 0.0, elo, last=f"game 11: {NAMES[0]} won", played=12)


@pytest.mark.parametrize("width", WIDTHS)
def test_nothing_runs_past_the_width(width: int) -> None:
    games = results()
    standings = compute_standings(games, NAMES)
    order = [row.bot for row in standings.rows]
    lines = render(width, standings_table(standings),
                   crosstable_table(order, pair_records(games, NAMES)), live_block(progress()))
    assert max(len(line) for line in lines) <= width
    text = "\n".join(lines)
    for name in NAMES:
        assert name[:12] in text
    assert "forfeits" in text and "lower is better" in text
    assert "Live Elo: provisional" in text and "Final standings" in text


@pytest.mark.parametrize("width", [60, 120])
def test_names_are_whole_where_they_fit(width: int) -> None:
    standings = compute_standings(results(), NAMES)
    text = "\n".join(render(width, standings_table(standings)))
    assert all(name in text for name in NAMES)


def test_the_forfeit_shows_in_the_forfeits_column() -> None:
    standings = compute_standings(results(), NAMES)
    lines = render(120, standings_table(standings))
    header = next(line for line in lines if "forfeits" in line)
    row = next(line for line in lines if NAMES[2] in line)
    assert header.rstrip().endswith("forfeits") and row.rstrip().endswith(" 1")


def test_an_interval_from_too_few_deal_sets_is_not_enough_games() -> None:
    standings = compute_standings(results(deal_sets=1), NAMES)
    assert "not enough games" in "\n".join(render(120, standings_table(standings)))


def test_the_crosstable_counts_wins_losses_and_draws() -> None:
    games = [ScoredGame(0, 0, 0, 0, NAMES[:2], (1, 2), (1, 2)),
             ScoredGame(1, 0, 0, 1, NAMES[1::-1], (1, 1), (1, 1))]
    records = pair_records(games, NAMES[:2])
    assert str(records[NAMES[0]][NAMES[1]]) == "1-0-1"
    assert str(records[NAMES[1]][NAMES[0]]) == "0-1-1"


def test_the_sprt_line_reads_as_cutechess_users_expect() -> None:
    v = SprtResult("H0", -3.14, -2.94, 2.94, 12, 0.3, -147.0, wins=2, draws=3, losses=7)
    line = sprt_line(v, "new", "old", 2)
    assert "H0 accepted after 12 deal sets (24 games)" in line
    assert "W-L-D 2-7-3" in line and "LLR -3.14 (bounds -2.94, +2.94)" in line


def test_the_list_has_a_header_and_says_how_a_match_ended() -> None:
    jobs = {"done": 23, "pending": 0, "running": 0, "skipped": 377}
    infos = [TournamentInfo("0123456789", NAMES[0], 1, "2026-12-01T20:00:00", "finished", jobs)]
    verdict = SprtResult("H0", -3.0, -2.94, 2.94, 11, 0.3, -147.0, 1, 3, 7)
    lines = render(80, tournaments_table(infos, {"0123456789": verdict}))
    header = next(line for line in lines if line.strip())
    assert header.split() == ["id", "status", "games", "created", "(UTC)", "name"]
    assert "decided (H0) after 23 games" in "\n".join(lines) and "23/23" in "\n".join(lines)


def test_a_log_gets_the_standings_every_tenth_of_the_way() -> None:
    stream = io.StringIO()
    display = LiveDisplay(Console(file=stream, width=80, force_terminal=False))
    p = progress()
    p.total = 40
    for done in range(1, 41):
        p.done = done
        display(p)
    display.close()
    text = stream.getvalue()
    assert text.count("Live Elo: provisional") == LOG_STEPS + 1  # the first game, each tenth
    assert "40/40 games" in text
