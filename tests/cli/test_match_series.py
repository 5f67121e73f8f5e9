"""``craits match --games N``: every deal from every seat, and the score as cutechess prints it."""

import pytest

from craits.cli.match_series import schedule, summary_lines
from craits.dealkey import DealKey
from craits.engine import Rules
from craits.referee.policy import FailurePolicy, TimeControl
from craits.tournament.match_score import elo_of, match_score, score_lines
from craits.tournament.results import GameResult

from .helpers import Runner


def test_each_deal_is_played_from_every_seat() -> None:
    plan = schedule(3, 6, DealKey.from_seed(10), Rules(), TimeControl(), FailurePolicy())
    seeds = [spec.seed for spec, _ in plan]
    assert seeds[:3] == [seeds[0]] * 3 and seeds[3:] == [seeds[3]] * 3 and seeds[0] != seeds[3]
    for deal in (plan[:3], plan[3:]):
        for seat in range(3):
            assert sorted(order[seat] for _, order in deal) == [0, 1, 2]
    assert len({spec.game_id for spec, _ in plan}) == 6


def test_the_score_counts_games_and_takes_the_interval_over_deal_sets() -> None:
    def game(i: int, a_place: int) -> GameResult:
        return GameResult(i, 0, i // 2, i % 2, ("a", "b"), (1, 2), (a_place, 3 - a_place))

    games = [game(0, 1), game(1, 1), game(2, 1), game(3, 2), game(4, 1), game(5, 1)]
    m = match_score(games, "a", "b")
    assert (m.record.wins, m.record.losses, m.record.draws, m.deal_sets) == (5, 1, 0, 3)
    assert m.elo == pytest.approx(elo_of(5 / 6))
    assert m.low is not None and m.high is not None and m.low < m.elo < m.high
    assert score_lines(m)[0] == "Score of a vs b: 5 - 1 - 0 (W - L - D) [0.833] 6"
    assert "unknown" in score_lines(match_score(games[:2], "a", "b"))[1]


def test_the_summary_totals_every_bot() -> None:
    games = [GameResult(0, 0, 0, 0, ("a", "b"), (10, 30), (1, 2)),
             GameResult(1, 0, 1, 0, ("b", "a"), (5, 25), (1, 2))]
    lines = summary_lines(games, ["a", "b"])
    assert lines[:3] == ["Total after 2 games (points: lower is better):",
                         "  a: 35 points, 1 wins in 2 games", "  b: 35 points, 1 wins in 2 games"]
    assert lines[3].startswith("Score of a vs b: 1 - 1 - 0")


def test_games_must_fill_whole_deals(cli: Runner) -> None:
    cli("match", "--bot", "greedy", "--bot", "lowcard", "--games", "3").assert_usage_error(
        "--games 3: give a multiple of 2")


def test_a_short_series_prints_the_totals_and_the_score(cli: Runner) -> None:
    done = cli("match", "--bot", "greedy", "--bot", "lowcard", "--games", "2", "--set",
               "short_game=true")
    assert done.status == 0, done.err
    assert "Total after 2 games" in done.out
    assert "Score of greedy vs lowcard: " in done.out and "Elo difference: " in done.out
    assert done.err.count("game g-") == 2
