"""Shuffle pressure (5, 10, 20 per player across the game; nothing left ends the hand) and the
turn safety cap (``max_turns_per_hand``)."""

from __future__ import annotations

import random

import pytest

from craits.engine import Card, Game, Phase, hand_score, preset

from .helpers import (
    card,
    cards,
    draws,
    last_hand,
    of_kind,
    play,
    position,
    rules,
)


def test_first_pressure_reshuffles_all_but_the_top_card_and_costs_five() -> None:
    game = position(["KC QC JC", "KH QH JH"], top="3D", under="4C 5S 6H", stock="")
    events = play(game, "draw")
    assert [e.kind for e in events] == ["pressure", "reshuffle", "draw"]
    pressure, reshuffle, _ = events
    assert (pressure.seat, pressure.value, pressure.aux) == (0, 5, 1)
    assert (reshuffle.seat, reshuffle.value) == (0, 3)
    assert game.discard == [card("3D")]
    assert len(game.stock) == 2 and len(game.hands[0]) == 4
    assert sorted(game.stock + game.hands[0][3:]) == sorted(cards("4C 5S 6H"))
    assert game.totals == [5, 0] and game.pressure_counts == [1, 0]
    assert game.pressure_points == [5, 0]


@pytest.mark.parametrize(("before", "points"), [
    (0, 5), (1, 10), (2, 20), (3, 40), (5, 160),
    (19, 5 * 2**19), (20, 5 * 2**20), (21, 5 * 2**20), (500, 5 * 2**20),  # ruling 28: 20 at most
])
def test_pressure_doubles_per_player(before: int, points: int) -> None:
    game = position(["KC QC JC", "KH QH JH"], top="3D", under="4C 5S", stock="",
                    pressure_counts=[before, 0], totals=[100, 0])
    events = play(game, "draw")
    assert of_kind(events, "pressure")[0].value == points
    assert game.totals == [100 + points, 0]
    assert game.pressure_counts == [before + 1, 0]


def test_pressure_counts_are_per_player_and_double_within_a_hand() -> None:
    # Seat 0 reshuffles one card (5), seat 1's five makes seat 0 draw from an empty stock again
    # (10); seat 1's own count is separate and untouched.
    game = position(["KC QC", "5D KH QH"], top="3D", under="4C", stock="",
                    pressure_counts=[0, 2])
    events = play(game, "draw")
    assert [e.value for e in of_kind(events, "pressure")] == [5]
    assert game.stock == [] and game.discard == [card("3D")]
    events = play(game, "play 5D")
    assert [(e.seat, e.value, e.aux) for e in of_kind(events, "pressure")] == [(0, 10, 2)]
    assert of_kind(events, "reshuffle")[0].value == 1  # the old top card, 3D
    assert draws(events) == [(0, 1, "five")]
    assert game.discard == [card("5D")]
    assert game.totals == [15, 0] and game.pressure_counts == [2, 2]
    assert game.pressure_points == [15, 0]


def test_pressure_with_nothing_to_reshuffle_ends_the_hand_at_once() -> None:
    game = position(["KC QC", "KH QH", "KS QS"], top="3D", stock="", hand_index=last_hand(),
                    pressure_counts=[1, 0, 0])
    events = play(game, "draw")
    assert [e.kind for e in events][:2] == ["pressure", "hand_score"]
    assert of_kind(events, "pressure")[0].value == 10
    assert of_kind(events, "hand_end")[0].detail == "pressure"
    # Scored as usual: 10 + 10 each, plus seat 0's penalty.
    assert [e.value for e in of_kind(events, "hand_score")] == [20, 20, 20]
    assert game.is_over and game.outcome is not None
    assert game.outcome.totals == (30, 20, 20)
    assert game.outcome.pressure_points == (10, 0, 0)


def test_pressure_in_the_middle_of_a_count_draw() -> None:
    # Count of 4, one card in stock, three under the top: draw 1, reshuffle, draw 3.
    game = position(["KC QC", "KH QH", "KS QS"], top="2D", under="4C 5S 6H", stock="9C",
                    phase=Phase.COUNT, count=4)
    events = play(game, "draw")
    assert [e.kind for e in events][:3] == ["pressure", "reshuffle", "draw"]
    assert draws(events) == [(0, 4, "count")]
    assert game.totals[0] == 5 and len(game.hands[0]) == 6 and game.stock == []


def test_pressure_mid_draw_with_nothing_left_keeps_what_was_drawn_and_ends_the_hand() -> None:
    game = position(["KC QC", "KH QH", "KS QS"], top="2D", stock="9C 10C",
                    phase=Phase.COUNT, count=5, hand_index=last_hand())
    events = play(game, "draw")
    assert draws(events) == [(0, 2, "count")]
    assert of_kind(events, "hand_end")[0].detail == "pressure"
    assert of_kind(events, "hand_score")[0].value == 10 + 10 + 30 + 25


def test_pressure_points_carry_across_hands() -> None:
    game = position(["KC QC JC", "5D", "KS"], top="3D", under="4C 4H 4S 6C", stock="")
    play(game, "draw")  # pressure 5 for seat 0
    assert game.pressure_counts == [1, 0, 0]
    play(game, "play 5D")  # seat 1 goes out: the next hand is dealt
    assert game.hand_index == 1 and game.pressure_counts == [1, 0, 0]
    # Empty the new hand's stock and make seat 0 draw: its second pressure costs 10.
    game.stock = []
    game.discard = [*cards("4H 5H"), card("3D")]
    game.active_suit = 1
    game.phase = Phase.PLAY
    game.to_act = 0
    game.hands[0] = cards("KC QC JC")
    game._legal = None
    before = game.totals[0]
    events = play(game, "draw")
    assert of_kind(events, "pressure")[0].value == 10
    assert game.totals[0] == before + 10 and game.pressure_counts == [2, 0, 0]


# ------------------------------------------------------------------ the turn cap
CAP_STOCK = "AC 2C 4C 5C 6C 7C 9C 10C JC AH 2H 4H 5H 6H 7H 9H 10H JH"


def test_turn_cap_ends_the_hand_as_it_stands() -> None:
    game = position(["KC QC", "KH QH"], top="3D", stock=CAP_STOCK, hand_index=last_hand(),
                    rules=rules(max_turns_per_hand=10))
    for _ in range(9):
        play(game, "draw")
    assert not game.is_over and game.turns_in_hand == 9
    events = play(game, "draw")
    assert of_kind(events, "hand_end")[0].detail == "cap"
    scores = [e.value for e in of_kind(events, "hand_score")]
    assert scores == [sum_points(game.hands[0]), sum_points(game.hands[1])]
    assert all(s > 0 for s in scores)  # nobody went out
    assert game.is_over and game.outcome is not None and game.outcome.capped_hands == 1


def sum_points(hand: list[Card]) -> int:
    return hand_score(hand, preset("standard"))


def test_a_cap_during_the_count_scores_whoever_went_out_in_it_as_out() -> None:
    game = position(["2H", "AS KC", "KH QH"], top="3H", stock=CAP_STOCK, hand_index=last_hand(),
                    rules=rules(max_turns_per_hand=10))
    game.turns_in_hand = 8
    events = play(game, "play 2H", "play AS one-card")  # seat 0 out; the 10th decision caps
    assert of_kind(events, "hand_end")[0].detail == "cap"
    assert [e.value for e in of_kind(events, "hand_score")] == [-10, 10, 20]


def test_turn_cap_counts_decisions_not_turns() -> None:
    # A six's replay is a second decision in the same turn: it counts.
    game = position(["6D 5D KC", "KH QH"], top="3D", stock=CAP_STOCK, hand_index=last_hand(),
                    rules=rules(max_turns_per_hand=10), to_act=1)
    game.turns_in_hand = 8
    play(game, "draw")  # 9th decision (seat 1)
    assert game.to_act == 0 and not game.is_over
    events = play(game, "play 6D")  # 10th decision: the hand ends before the replay
    assert of_kind(events, "hand_end")[0].detail == "cap" and game.is_over


@pytest.mark.parametrize("players", [2, 5, 8])
def test_turn_cap_in_whole_games(players: int) -> None:
    r = rules(max_turns_per_hand=10)
    rng = random.Random(players)
    game = Game.new(r, players, seed=players)
    while not game.is_over:
        assert game.turns_in_hand < 10
        moves = game.legal_moves()
        game.apply(moves[rng.randrange(len(moves))])
    ends = of_kind(game.events, "hand_end")
    assert len(ends) == 15
    assert game.outcome is not None
    assert game.outcome.capped_hands == sum(e.detail == "cap" for e in ends) > 0


def test_the_dealers_suit_choice_counts_toward_the_cap() -> None:
    game = position(["KC QC", "KH QH"], top="8D", stock=CAP_STOCK, hand_index=last_hand(),
                    rules=rules(max_turns_per_hand=10), phase=Phase.CHOOSE_SUIT, to_act=1,
                    dealer=1)
    game.turns_in_hand = 9
    events = play(game, "suit S")
    assert of_kind(events, "hand_end")[0].detail == "cap" and game.is_over
