"""``craits match --games N``: every deal from every seat, and the score as cutechess prints it."""

import json
import re

import pytest

from craits.cli.match_series import schedule, summary_lines
from craits.dealkey import DealKey
from craits.engine import Rules
from craits.ratings.elo import elo_of
from craits.ratings.intervals import MIN_UNITS, clustered_ratings
from craits.ratings.match_score import match_score, score_lines
from craits.ratings.results import ScoredGame
from craits.referee.policy import FailurePolicy, TimeControl

from .helpers import Runner

pytestmark = pytest.mark.slow  # real matches of many games


def test_each_deal_is_played_from_every_seat() -> None:
    plan = schedule(3, 6, DealKey.from_seed(10), Rules(), TimeControl(), FailurePolicy())
    seeds = [spec.seed for spec, _ in plan]
    assert seeds[:3] == [seeds[0]] * 3 and seeds[3:] == [seeds[3]] * 3 and seeds[0] != seeds[3]
    for deal in (plan[:3], plan[3:]):
        for seat in range(3):
            assert sorted(order[seat] for _, order in deal) == [0, 1, 2]
    assert len({spec.game_id for spec, _ in plan}) == 6


def _game(i: int, a_place: int, seatings: int = 2) -> ScoredGame:
    """Game ``i`` of a's and b's series, ``seatings`` games a deal set; a_place 1 wins, 2 loses,
    0 is a draw (equal totals share first place)."""
    places = (1, 1) if a_place == 0 else (a_place, 3 - a_place)
    return ScoredGame(i, 0, i // seatings, i % seatings, ("a", "b"), (1, 2), places)


def test_the_score_counts_games_and_takes_the_interval_over_deal_sets() -> None:
    """Five deal sets that differ: W-L-D counts games, the interval is the tournament's own."""
    places = [1, 1, 1, 2, 1, 1, 2, 2, 1, 1]
    games = [_game(i, p) for i, p in enumerate(places)]
    m = match_score(games, "a", "b")
    assert (m.record.wins, m.record.losses, m.record.draws, m.deal_sets) == (7, 3, 0, 5)
    fit = clustered_ratings(games, ["a", "b"])
    assert m.elo == pytest.approx(fit.ratings[0] - fit.ratings[1])
    assert m.low == pytest.approx(fit.low[0] - fit.high[1])
    assert m.low is not None and m.high is not None and m.low < m.elo < m.high
    assert score_lines(m)[0] == "Score of a vs b: 7 - 3 - 0 (W - L - D) [0.700] 10"
    assert score_lines(m)[1] == (f"Elo difference: {m.elo:+.0f} [{m.low:+.0f}, {m.high:+.0f}] "
                                 "(95%, over 5 deal sets)")


def test_below_the_tournament_minimum_of_deal_sets_there_is_no_interval() -> None:
    """Two deal sets that differ (the old normal interval printed numbers here): not enough."""
    m = match_score([_game(0, 1), _game(1, 1), _game(2, 1), _game(3, 2)], "a", "b")
    assert m.deal_sets == 2 and (m.low, m.high) == (None, None) and not m.rating.enough
    assert score_lines(m)[1].endswith(
        "not enough games for a 95% interval: 2 deal sets, at least 5 needed")
    assert MIN_UNITS == 5
    four = match_score([_game(i, 1 + i % 3 % 2) for i in range(2 * (MIN_UNITS - 1))], "a", "b")
    assert not four.rating.enough and four.rating.note.startswith("not enough games")


def test_no_games_say_not_enough_games() -> None:
    m = match_score([], "a", "b")
    assert (m.record.games, m.deal_sets, m.low, m.high) == (0, 0, None, None)
    assert score_lines(m) == ["Score of a vs b: 0 - 0 - 0 (W - L - D) [0.500] 0",
                              "Elo difference: +0, not enough games for a 95% interval: 0 deal "
                              "sets, at least 5 needed"]


@pytest.mark.parametrize("a_place", [0, 1, 2], ids=["all-draws", "a-first", "b-first"])
def test_deal_sets_that_all_end_level_give_no_zero_width_interval(a_place: int) -> None:
    """All draws, or every deal set split 1-1 (the 5-5 that printed "-0 [-0, -0]"): a spread
    of zero estimates nothing, so no interval, and never "-0"."""
    games = ([_game(i, 0) for i in range(10)] if a_place == 0
             else [_game(i, 1 + (i + a_place) % 2) for i in range(10)])
    m = match_score(games, "a", "b")
    assert m.deal_sets == 5 and (m.low, m.high) == (None, None)
    assert m.elo == pytest.approx(0.0, abs=1e-9)
    assert score_lines(m)[1] == ("Elo difference: +0, not enough information for an interval: "
                                 "every one of the 5 deal sets ended the same (a scoring 0.500), "
                                 "so their spread is unknown")


def test_all_wins_give_a_lower_bound_and_no_upper_one() -> None:
    """A that took every game: no finite upper bound exists, and the lower one grows with the
    deal sets (the Clopper–Pearson bound on taking a whole deal set, ``head_to_head``)."""
    ten = match_score([_game(i, 1) for i in range(20)], "a", "b")
    assert ten.high is None and ten.low is not None
    assert ten.low == pytest.approx(elo_of(0.025 ** (1 / 10)))
    assert score_lines(ten)[1] == ("Elo difference: at least +140 (95% lower bound, none above: "
                                   "a won every game of all 10 deal sets)")
    fifty = match_score([_game(i, 1) for i in range(100)], "a", "b")
    assert fifty.low is not None and fifty.low > ten.low
    lost = match_score([_game(i, 2) for i in range(20)], "a", "b")
    assert lost.low is None and lost.high == pytest.approx(-ten.low)
    assert score_lines(lost)[1].startswith("Elo difference: at most -140 (95% upper bound")


def test_serve_reads_each_game_as_its_own_deal_set() -> None:
    """``craits serve --games 2`` (both won) printed "+1000 [+1000, +1000]"."""
    lines = summary_lines([_game(0, 1, seatings=1), _game(1, 1, seatings=1)], ["a", "b"])
    assert lines[-1].endswith("not enough games for a 95% interval: 2 deal sets, at least 5 "
                              "needed")


def test_the_summary_totals_every_bot() -> None:
    games = [ScoredGame(0, 0, 0, 0, ("a", "b"), (10, 30), (1, 2)),
             ScoredGame(1, 0, 1, 0, ("b", "a"), (5, 25), (1, 2))]
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


def test_a_five_five_series_of_deterministic_twins_prints_no_interval(cli: Runner) -> None:
    """The report's case, for real: greedy against itself trades every deal 1-1."""
    done = cli("match", "--bot", "greedy", "--bot", "greedy", "--games", "10", "--seed", "3",
               "--set", "short_game=true")
    assert done.status == 0, done.err
    assert "Score of greedy#1 vs greedy#2: 5 - 5 - 0" in done.out
    assert "Elo difference: +0, not enough information for an interval" in done.out
    assert "-0" not in done.out


def test_two_deal_sets_say_not_enough_games_in_text_and_json(cli: Runner) -> None:
    args = ("match", "--bot", "greedy", "--bot", "lowcard", "--games", "4", "--seed", "5",
            "--set", "short_game=true")
    done = cli(*args)
    assert done.status == 0, done.err
    assert "not enough games for a 95% interval: 2 deal sets, at least 5 needed" in done.out
    data = json.loads(cli(*args, "--json").out)
    (score,) = data["scores"]
    assert (score["elo_low"], score["elo_high"], score["enough"]) == (None, None, False)
    assert score["deal_sets"] == 2 and score["interval_note"].startswith("not enough games")


def test_enough_deal_sets_print_a_real_interval_in_text_and_json(cli: Runner) -> None:
    args = ("match", "--bot", "greedy", "--bot", "lowcard", "--games", "20", "--seed", "7",
            "--set", "short_game=true")
    line = next(x for x in cli(*args).out.splitlines() if x.startswith("Elo difference: "))
    assert re.fullmatch(r"Elo difference: [+-]\d+ \[[+-]\d+, [+-]\d+\] \(95%, over 10 deal "
                        r"sets\)", line), line
    (score,) = json.loads(cli(*args, "--json").out)["scores"]
    assert score["enough"] is True and score["elo_low"] < score["elo"] < score["elo_high"]
    assert f"[{score['elo_low']:+.0f}, {score['elo_high']:+.0f}]" in line
    assert {"bot", "opponent", "wins", "losses", "draws", "games", "score", "deal_sets", "elo",
            "elo_low", "elo_high"} <= set(score)
