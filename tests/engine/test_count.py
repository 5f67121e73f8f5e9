"""The count: a 2 starts it, A and 2 add, the first who cannot draws the count, play resumes
with the next player; going out during the count under both ``count_out_continues`` settings."""

from __future__ import annotations

import pytest

from craits.engine import Event, Game, IllegalMove, Phase

from .helpers import (
    card,
    draws,
    hand_text,
    last_hand,
    legal_text,
    move,
    of_kind,
    play,
    position,
    rules,
    snapshot,
)

STOCK = "4C 5C 6C 7C 9C 10C JC QC KC 4H 5H 6H 7H 9H 10H JH"


def test_count_adds_and_the_first_who_cannot_draws_the_count() -> None:
    game = position(
        ["2D KC QC", "AH KD QD", "2S KH QH", "KS QS JS"], top="3D", stock=STOCK
    )
    events = play(game, "play 2D")
    assert game.phase is Phase.COUNT and game.count == 2 and game.to_act == 1
    events += play(game, "play AH")
    assert game.count == 3 and game.to_act == 2 and game.phase is Phase.COUNT
    events += play(game, "play 2S")
    assert game.count == 5 and game.to_act == 3
    assert legal_text(game) == ["draw"]
    events += play(game, "draw")
    assert [e.value for e in of_kind(events, "count")] == [2, 3, 5]
    assert draws(events) == [(3, 5, "count")]
    (end,) = of_kind(events, "count_end")
    assert (end.seat, end.value) == (3, 5)
    assert len(game.hands[3]) == 8
    # Normal play resumes with the NEXT player, on the last 2 (its function not applied again).
    assert (game.to_act, game.phase, game.count) == (0, Phase.PLAY, 0)
    assert game.top_card == card("2S") and game.active_suit == 3


def test_after_the_count_a_new_two_starts_a_new_count() -> None:
    game = position(["2D 2H KC", "AD KD QD", "KS QS JS"], top="3D", stock=STOCK)
    play(game, "play 2D", "play AD", "draw")
    assert game.to_act == 0 and game.phase is Phase.PLAY and game.top_card == card("AD")
    assert legal_text(game) == ["draw"]  # 2H matches neither A nor diamonds: no count by rank
    game = position(["2D 2H KS QS", "2C KD QD", "KS QS JS"], top="3D", stock=STOCK)
    play(game, "play 2D", "play 2C", "draw")
    assert game.to_act == 0 and legal_text(game) == ["play 2H"]
    play(game, "play 2H")
    assert game.phase is Phase.COUNT and game.count == 2 and game.to_act == 1


def test_only_aces_and_twos_in_the_count() -> None:
    game = position(
        ["KC QC", "4D 10D 8D 3D 2C AS", "KS"], top="2D", stock=STOCK, to_act=1,
        phase=Phase.COUNT, count=2,
    )
    assert legal_text(game) == ["play 2C", "play AS"]
    for text in ("play 4D", "play 10D", "play 8D suit=H", "play 3D"):
        before = snapshot(game)
        with pytest.raises(IllegalMove) as exc:
            game.apply(move(text))
        assert exc.value.rule == "the count"
        assert snapshot(game) == before
    with pytest.raises(IllegalMove):
        game.apply(move("draw"))  # able to play an A or 2: must play


def test_count_counter_clockwise_and_with_two_players() -> None:
    game = position(["2D KC", "KH QH", "AS QS"], top="3D", stock=STOCK, direction=-1)
    play(game, "play 2D one-card")
    assert game.to_act == 2
    play(game, "play AS one-card")
    assert game.to_act == 1 and game.count == 3
    events = play(game, "draw")
    assert draws(events) == [(1, 3, "count")] and game.to_act == 0

    game = position(["2D AC KC", "2H QH KH"], top="3D", stock=STOCK)
    play(game, "play 2D", "play 2H", "play AC one-card")
    assert game.count == 5 and game.to_act == 1
    events = play(game, "draw")
    assert draws(events) == [(1, 5, "count")] and game.to_act == 0


def test_a_forfeit_does_not_pass_the_count_on_and_waits_for_a_turn_of_normal_play() -> None:
    game = position(
        ["2D KH QC", "AH KD QD", "KS QS JS"], top="3D", stock=STOCK, forfeits=[0, 1, 0]
    )
    events = play(game, "play 2D")
    assert not of_kind(events, "skip")
    assert game.to_act == 1 and game.phase is Phase.COUNT and game.forfeits == [0, 1, 0]
    events = play(game, "play AH")  # the forfeited seat answers the count like anyone
    assert game.to_act == 2 and game.count == 3
    events = play(game, "draw")
    assert draws(events) == [(2, 3, "count")] and game.to_act == 0
    events = play(game, "play KH one-card")  # seat 1's next turn of normal play: forfeited
    assert [(e.seat, e.detail) for e in of_kind(events, "skip")] == [(1, "forfeit")]
    assert game.to_act == 2 and game.forfeits == [0, 0, 0]


def test_with_two_players_a_forfeited_opponent_faces_the_count_it_never_comes_back() -> None:
    game = position(["2D 3D KC", "KH QH"], top="3D", stock=STOCK, forfeits=[0, 1])
    events = play(game, "play 2D")
    assert game.to_act == 1 and game.phase is Phase.COUNT
    assert legal_text(game) == ["draw"]
    events = play(game, "draw")
    assert draws(events) == [(1, 2, "count")] and game.to_act == 0
    events = play(game, "play 3D one-card")  # seat 1's next turn of normal play: forfeited
    assert [(e.seat, e.detail) for e in of_kind(events, "skip")] == [(1, "forfeit")]
    assert game.to_act == 0 and game.forfeits == [0, 0]


def test_draw_when_able_applies_to_the_count() -> None:
    game = position(
        ["KC QC", "AH KD QD", "KS"], top="2D", stock=STOCK, to_act=1, phase=Phase.COUNT,
        count=4, rules=rules(draw_when_able=True),
    )
    assert legal_text(game) == ["draw", "play AH"]
    events = play(game, "draw")
    assert draws(events) == [(1, 4, "count")] and game.to_act == 2


# ------------------------------------------------------------------ going out during the count
def out_in_count(**changes: object) -> Game:
    """Seat 0 goes out with a 2; seats 1 and 2 each add an ace; the count comes back to seat 0."""
    game = position(
        ["2D", "AH KC", "AS KH"], top="3D", stock=STOCK, rules=rules(**changes),
        hand_index=last_hand(),
    )
    events = play(game, "play 2D")
    assert of_kind(events, "went_out")[0].seat == 0
    assert game.phase is Phase.COUNT and game.to_act == 1 and not game.is_over
    play(game, "play AH one-card", "play AS one-card")
    assert game.to_act == 0 and game.count == 4 and legal_text(game) == ["draw"]
    return game


def test_out_in_count_comes_round_default_ends_the_hand_and_scores_the_drawn_cards() -> None:
    game = out_in_count()
    events = play(game, "draw")
    assert draws(events) == [(0, 4, "count")]
    (end,) = of_kind(events, "hand_end")
    assert end.detail == "out"
    scores = {e.seat: e.value for e in of_kind(events, "hand_score")}
    assert scores[0] == 15 + 30 + 30 + 20  # the four cards drawn: 4C 5C 6C 7C
    assert scores[1] == 10 and scores[2] == 10  # nobody gets the going-out points
    assert game.is_over


def test_out_in_count_comes_round_count_out_continues_keeps_the_hand_going() -> None:
    game = out_in_count(count_out_continues=True)
    events = play(game, "draw")
    assert draws(events) == [(0, 4, "count")]
    assert not of_kind(events, "hand_end") and not game.is_over
    assert game.to_act == 1 and game.phase is Phase.PLAY
    assert hand_text(game, 0) == "4C 5C 6C 7C"


@pytest.mark.parametrize("continues", [False, True])
def test_out_in_count_ended_by_another_player_ends_the_hand(continues: bool) -> None:
    game = position(
        ["2D", "AH KC", "KS QH"], top="3D", stock=STOCK, rules=rules(count_out_continues=continues),
        hand_index=last_hand(),
    )
    play(game, "play 2D", "play AH one-card")
    assert game.to_act == 2 and not game.is_over
    events = play(game, "draw")
    assert draws(events) == [(2, 3, "count")]
    assert of_kind(events, "hand_end")[0].detail == "out"
    scores = {e.seat: e.value for e in of_kind(events, "hand_score")}
    assert scores == {0: -10, 1: 10, 2: 10 + 10 + 15 + 30 + 30}
    assert game.is_over


def test_out_in_count_two_players() -> None:
    game = position(["2D", "KC QC"], top="3D", stock=STOCK, hand_index=last_hand())
    events = play(game, "play 2D")
    assert game.to_act == 1 and game.phase is Phase.COUNT and not game.is_over
    events += play(game, "draw")
    assert draws(events) == [(1, 2, "count")]
    assert [e.value for e in of_kind(events, "hand_score")] == [-10, 10 + 10 + 15 + 30]


def second_out_then_round_to_the_first(**changes: object) -> tuple[Game, list[Event]]:
    """Seat 0 goes out with a 2, seat 1 with an ace; seat 2's 2 brings the count to seat 0."""
    game = position(["2H", "AS", "2C KS QS"], top="3H", stock=STOCK, rules=rules(**changes),
                    hand_index=last_hand())
    events = play(game, "play 2H", "play AS", "play 2C", "draw")
    assert [e.seat for e in of_kind(events, "went_out")] == [0, 1]
    assert draws(events) == [(0, 5, "count")]
    return game, events


def test_when_the_count_comes_round_to_who_went_out_nobody_scores_the_going_out_points() -> None:
    """RULINGS: "(nobody gets the going-out points)", also another player who went out."""
    _, events = second_out_then_round_to_the_first()
    assert of_kind(events, "hand_end")[0].detail == "out"
    assert [e.value for e in of_kind(events, "hand_score")] == [
        15 + 30 + 30 + 20 + 30, 0, 10 + 10]  # 4C 5C 6C 7C 9C drawn; seat 1 scores nothing


def test_with_count_out_continues_a_hand_that_ends_for_another_player_out_scores_them() -> None:
    _, events = second_out_then_round_to_the_first(count_out_continues=True)
    assert [e.value for e in of_kind(events, "hand_score")] == [
        15 + 30 + 30 + 20 + 30, -10, 10 + 10]


def test_two_players_out_during_the_same_count_both_score_the_going_out_points() -> None:
    game = position(["2D", "AH", "KS QS"], top="3D", stock=STOCK, hand_index=last_hand())
    events = play(game, "play 2D", "play AH")
    assert [e.seat for e in of_kind(events, "went_out")] == [0, 1]
    assert game.to_act == 2 and not game.is_over
    events = play(game, "draw")
    assert draws(events) == [(2, 3, "count")]
    assert [e.value for e in of_kind(events, "hand_score")] == [-10, -10, 20 + 15 + 30 + 30]
