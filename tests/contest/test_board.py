"""The board's order (``contest.board``): a clean sweep is established and placed by its
rating, not left provisional below the versions it beat."""

from __future__ import annotations

from craits.contest.board import board_rows
from craits.contest.store import Contestant, Version
from craits.contest.versions import VersionState
from craits.ratings.results import ScoredGame


def version(i: int) -> Version:
    return Version(i, i, 1, "h", "s", "c", "python", 1, 1, VersionState.RATED, None, "", 0.0,
                   0.0)


def sweep_games(deal_sets: int) -> list[ScoredGame]:
    """Deal sets of two seatings among three versions in turn: version 1 wins every game it
    plays, 2 beats 3 except at one seating of every other deal set (so 2 and 3 have spread)."""
    games: list[ScoredGame] = []
    for table in range(1, deal_sets + 1):
        a, b = [("1", "2"), ("1", "3"), ("2", "3")][table % 3]
        for rotation, seats in enumerate([(a, b), (b, a)]):
            winner = "1" if "1" in seats else ("3" if rotation == 1 and table % 2 else "2")
            places = tuple(1 if s == winner else 2 for s in seats)
            games.append(ScoredGame(len(games) + 1, table, 0, rotation, seats, (0, 0), places))
    return games


def board(deal_sets: int, provisional: int) -> list[tuple[str, bool, float | None]]:
    rows = board_rows(sweep_games(deal_sets), [version(1), version(2), version(3)],
                      [Contestant(i, f"c{i}") for i in (1, 2, 3)], provisional)
    return [(r["contestant"], r["provisional"], r["low"]) for r in rows]


def test_a_version_that_won_every_game_leads_once_it_has_its_deal_sets() -> None:
    rows = board(12, provisional=4)
    assert [name for name, _, _ in rows] == ["c1", "c2", "c3"]
    assert rows[0] == ("c1", False, None)  # established, with no interval (no spread)
    assert all(low is not None for _, _, low in rows[1:])


def test_before_its_deal_sets_the_sweep_is_provisional_like_the_others() -> None:
    rows = board(12, provisional=9)  # each has 8 deal sets: all provisional, by rating
    assert [(name, provisional) for name, provisional, _ in rows] == [
        ("c1", True), ("c2", True), ("c3", True)]
