"""Scoring: card points, threes, the sources' examples, going out, places with ties."""

from __future__ import annotations

import random

import pytest

from craits.engine import Game, Rules, hand_score, places, preset
from craits.engine.scoring import cancellations

from .helpers import cards, draws, last_hand, of_kind, play, position, rules

STANDARD, GAMERULES, SPANISH = preset("standard"), preset("gamerules"), preset("spanish")


@pytest.mark.parametrize(
    ("rank", "points"),
    [("A", 1), ("2", 20), ("4", 15), ("5", 30), ("6", 30), ("7", 20), ("8", 50), ("9", 30),
     ("10", 25), ("J", 10), ("Q", 10), ("K", 10)],
)
def test_card_points(rank: str, points: int) -> None:
    for suit in "CDHS":
        assert hand_score(cards(rank + suit), STANDARD) == points
        assert hand_score(cards(rank + suit), GAMERULES) == points


SCORES = [
    # The sources' checks.
    ("AH 3C 3D 6S 7H 9D KC", STANDARD, 37),  # W: 1 + 3 + 3 + 20 + 10
    ("3C 2D 8H", GAMERULES, 20),  # G: the three cancels the eight
    ("3C 2D 8H", STANDARD, 53),  # 3 + 50: cancels the two, never the eight
    ("3C 2D 8H", SPANISH, 53),
    # Only threes: -50 each, whatever the preset.
    ("3C", STANDARD, -50),
    ("3C 3D", STANDARD, -100),
    ("3C 3D 3H 3S", GAMERULES, -200),
    ("3C", SPANISH, -50),
    # Threes left over still score their points.
    ("3C 3D AH", STANDARD, 6),
    ("3C 3D AH", GAMERULES, 0),
    # Highest-valued cards are cancelled first.
    ("3C AH 5S", STANDARD, 1 + 3),
    ("3C 3S 10H 5S 9D 2C", STANDARD, 25 + 20 + 6),
    # Eights: never cancelled in standard; cancelled first (50 is highest) when allowed.
    ("3C 8D", STANDARD, 53),
    ("3C 8D", GAMERULES, 0),
    ("3C 3D 8D 8S", STANDARD, 106),
    ("3C 8D 5S", GAMERULES, 30),
    ("3C 8D 5S", STANDARD, 50 + 3),
    ("3C 8D 5S", STANDARD.replace(three_cancels_eight=True), 30 + 3),
    # No threes: plain sum.
    ("KC QD JH 10S", STANDARD, 55),
    ("", STANDARD, 0),
]


@pytest.mark.parametrize(
    ("hand", "r", "score"), SCORES, ids=[f"{h}|{r.preset}" for h, r, _ in SCORES]
)
def test_hand_score(hand: str, r: Rules, score: int) -> None:
    assert hand_score(cards(hand), r) == score


def test_three_points_field() -> None:
    r = STANDARD.replace(three_points=7)
    assert hand_score(cards("3C 3D AH"), r) == 14
    assert hand_score(cards("3C"), r) == -50


CANCELLATIONS = [
    # hand, rules, cancelled positions, counted positions
    ("AH 3C 3D 6S 7H 9D KC", STANDARD, [3, 5], [0, 4, 6]),  # the 6 and the 9 (30 each)
    ("3C 2D 8H", STANDARD, [1], [2]),  # never the eight
    ("3C 2D 8H", GAMERULES, [2], [1]),  # the eight first: 50 is the most
    ("3C 3D AH", STANDARD, [2], []),  # a three with nothing left to cancel
    ("5S 3C 5D 6H", STANDARD, [0], [2, 3]),  # equal points: hand order decides
    ("KC QD", STANDARD, [], [0, 1]),
    ("3C 3D", STANDARD, [], []),
]


@pytest.mark.parametrize(("hand", "r", "cancelled", "counted"), CANCELLATIONS,
                         ids=[f"{h}|{r.preset}" for h, r, _, _ in CANCELLATIONS])
def test_cancellations(hand: str, r: Rules, cancelled: list[int], counted: list[int]) -> None:
    assert cancellations(cards(hand), r) == (cancelled, counted)


@pytest.mark.parametrize(
    ("totals", "expected"),
    [([10, 5, 10, 3], [3, 2, 3, 1]), ([0, 0, 0], [1, 1, 1]), ([5, 1, 1, 7], [3, 1, 1, 4]),
     ([-20, 40], [1, 2]), ([7, 7, 2, 2, 9], [3, 3, 1, 1, 5])],
)
def test_places_share_on_ties(totals: list[int], expected: list[int]) -> None:
    assert places(totals) == expected


# ------------------------------------------------------------------ going out
@pytest.mark.parametrize(("name", "points"), [("standard", -10), ("gamerules", 0),
                                              ("spanish", -10)])
def test_going_out_points_per_preset(name: str, points: int) -> None:
    r = preset(name)
    game = position(["5D", "KH 3C", "8S 2H 3H"], top="3D", stock="4C 9C", rules=r,
                    hand_index=last_hand(r), totals=[0, 0, 0])
    play(game, "play 5D")
    scores = [e.value for e in of_kind(game.events, "hand_score")]
    assert scores[0] == points
    assert scores[1] == hand_score(cards("KH 3C 4C"), r)
    assert scores[2] == hand_score(cards("8S 2H 3H 9C"), r)
    assert game.outcome is not None and game.outcome.totals == tuple(scores)


def test_going_out_points_field_on_any_preset() -> None:
    r = preset("gamerules").replace(going_out_points=-25)
    game = position(["AD", "KH"], top="3D", rules=r, hand_index=last_hand(r))
    play(game, "play AD")
    assert [e.value for e in of_kind(game.events, "hand_score")] == [-25, 10]


@pytest.mark.parametrize(
    ("last", "expected_draws"),
    [("5D", [(1, 1, "five"), (2, 1, "five")]), ("7D", [(1, 1, "seven")]), ("6D", []),
     ("4D", []), ("10D", []), ("AD", []), ("8D suit=C", [])],
)
def test_the_last_cards_function_is_carried_out_before_scoring(
    last: str, expected_draws: list[tuple[int, int, str]]
) -> None:
    game = position([last.split()[0], "KH QH", "KS QS"], top="3D", stock="4C 9C",
                    hand_index=last_hand())
    events = play(game, f"play {last}")
    assert draws(events) == expected_draws
    kinds = [e.kind for e in events]
    assert kinds.index("went_out") < kinds.index("hand_score")
    assert of_kind(events, "hand_end")[0].detail == "out"
    scores = {e.seat: e.value for e in of_kind(events, "hand_score")}
    assert scores[0] == -10
    assert scores[1] == 20 + (15 if expected_draws else 0)
    assert game.is_over


def test_hand_score_events_reveal_the_hands_and_totals_accumulate() -> None:
    game = position(["AD", "KH 3C", "8S"], top="3D", totals=[4, 50, -10],
                    hand_index=last_hand())
    play(game, "play AD")
    hs = of_kind(game.events, "hand_score")
    assert [(e.seat, [str(c) for c in e.cards], e.value, e.aux) for e in hs] == [
        (0, [], -10, -6), (1, ["KH", "3C"], 3, 53), (2, ["8S"], 50, 40)
    ]
    assert game.hand_scores == [(-10, 3, 50)]
    assert game.outcome is not None
    assert game.outcome.places == (1, 3, 2)
    finals = of_kind(game.events, "final")
    assert [(e.seat, e.value, e.aux) for e in finals] == [(0, -6, 1), (1, 53, 3), (2, 40, 2)]


def test_final_places_share_on_ties() -> None:
    game = position(["AD", "KH", "QS"], top="3D", totals=[11, 0, 0], hand_index=last_hand())
    play(game, "play AD")
    assert game.outcome is not None
    assert game.outcome.totals == (1, 10, 10)
    assert game.outcome.places == (1, 2, 2)


def test_whole_game_totals_are_hand_scores_plus_pressure() -> None:
    for seed in range(6):
        r = rules(max_turns_per_hand=200)
        game = Game.new(r, 2 + seed, seed)
        rng = random.Random(seed)
        while not game.is_over:
            moves = game.legal_moves()
            game.apply(moves[rng.randrange(len(moves))])
        out = game.outcome
        assert out is not None and out.hands_played == 15 == len(out.hand_scores)
        for seat in range(game.players):
            assert out.totals[seat] == (
                sum(h[seat] for h in out.hand_scores) + out.pressure_points[seat]
            )
        assert list(out.places) == places(list(out.totals))
