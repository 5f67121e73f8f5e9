"""Face-card functions (``face_cards``, source E): jacks chain, the queen of spades, king runs."""

from __future__ import annotations

import pytest

from craits.engine import IllegalMove, Phase

from .helpers import (
    draws,
    last_hand,
    legal_text,
    move,
    of_kind,
    play,
    position,
    rules,
    snapshot,
)

FACE = rules(face_cards=True)
STOCK = "4C 5C 6C 7C 9C 10C 4H 5H 6H 7H 9H 10H 4S 5S 6S 7S 9S 10S"


# ------------------------------------------------------------------ jacks
def test_jack_next_draws_two_and_loses_the_turn() -> None:
    game = position(["JD KC QC", "KH QH 4H", "KS QS 4S"], top="3D", stock=STOCK, rules=FACE)
    play(game, "play JD")
    assert game.phase is Phase.JACKS and game.to_act == 1 and game.jack_penalty == 2
    assert legal_text(game) == ["draw"]
    events = play(game, "draw")
    assert draws(events) == [(1, 2, "jack")]
    assert [(e.seat, e.detail) for e in of_kind(events, "skip")] == [(1, "jack")]
    assert (game.to_act, game.phase, game.jack_penalty) == (2, Phase.PLAY, 0)


def test_consecutive_jacks_make_four_six_eight() -> None:
    game = position(
        ["JD KC QC", "JH KH QH", "JS KS QS", "JC 4D 4H"], top="3D", stock=STOCK, rules=FACE
    )
    play(game, "play JD")
    assert legal_text(game) == ["play JH"]  # only a jack, and drawing is not allowed
    play(game, "play JH")
    assert (game.to_act, game.jack_penalty) == (2, 4)
    play(game, "play JS")
    assert (game.to_act, game.jack_penalty) == (3, 6)
    play(game, "play JC")
    assert (game.to_act, game.jack_penalty, game.phase) == (0, 8, Phase.JACKS)
    events = play(game, "draw")
    assert draws(events) == [(0, 8, "jack")] and game.to_act == 1


def test_facing_jacks_only_a_jack_of_any_suit() -> None:
    game = position(
        ["KC QC", "JS 3D 8D 4D KH", "KS"], top="JD", stock=STOCK, rules=FACE, to_act=1,
        phase=Phase.JACKS, jack_penalty=2,
    )
    assert legal_text(game) == ["play JS"]
    for text in ("play 3D", "play 8D suit=H", "draw", "play 4D"):
        before = snapshot(game)
        with pytest.raises(IllegalMove) as exc:
            game.apply(move(text))
        assert exc.value.rule in ("jack", "a turn")
        assert snapshot(game) == before
    with pytest.raises(IllegalMove) as exc:
        game.apply(move("play 3D"))
    assert exc.value.rule == "jack"


def test_draw_when_able_applies_to_jacks() -> None:
    game = position(
        ["KC QC", "JS KH QH", "KS"], top="JD", stock=STOCK, to_act=1, phase=Phase.JACKS,
        jack_penalty=4, rules=rules(face_cards=True, draw_when_able=True),
    )
    assert legal_text(game) == ["draw", "play JS"]
    events = play(game, "draw")
    assert draws(events) == [(1, 4, "jack")] and game.to_act == 2


def test_a_forfeit_does_not_pass_pending_jacks_on() -> None:
    game = position(
        ["JD KC QC", "KH QH 4H", "KS QS 4S"], top="3D", stock=STOCK, rules=FACE,
        forfeits=[0, 1, 0],
    )
    events = play(game, "play JD")
    assert not of_kind(events, "skip")
    assert game.to_act == 1 and game.phase is Phase.JACKS
    events = play(game, "draw")
    assert draws(events) == [(1, 2, "jack")] and game.to_act == 2
    # losing the turn to the jacks is the card's skip, not the forfeit, which is still owed
    assert [(e.seat, e.detail) for e in of_kind(events, "skip")] == [(1, "jack")]
    assert game.forfeits == [0, 1, 0]


def test_jack_as_the_going_out_card_makes_the_next_player_draw_at_once() -> None:
    game = position(["JD", "KH QH", "KS QS"], top="3D", stock=STOCK, rules=FACE,
                    hand_index=last_hand())
    events = play(game, "play JD")
    assert draws(events) == [(1, 2, "jack")]
    assert of_kind(events, "hand_end")[0].detail == "out" and game.is_over
    assert [e.value for e in of_kind(events, "hand_score")] == [-10, 10 + 10 + 15 + 30, 20]


def test_jack_as_the_going_out_card_hits_a_forfeited_next_seat_too() -> None:
    game = position(["JD", "KH QH", "KS QS"], top="3D", stock=STOCK, rules=FACE,
                    hand_index=last_hand(), forfeits=[0, 1, 0])
    events = play(game, "play JD")
    assert draws(events) == [(1, 2, "jack")]
    assert [e.value for e in of_kind(events, "hand_score")] == [-10, 10 + 10 + 15 + 30, 20]


def test_with_two_players_going_out_on_a_jack_never_makes_its_player_draw() -> None:
    """Passing the jacks over a forfeited opponent used to bring them back to the player who
    had just gone out, who drew them and lost the going-out points."""
    game = position(["JH", "5C 6C"], top="4H", stock="AS 4S 5S 7S KD", rules=FACE,
                    hand_index=last_hand(), forfeits=[0, 1])
    events = play(game, "play JH")
    assert draws(events) == [(1, 2, "jack")]
    assert [e.value for e in of_kind(events, "hand_score")] == [-10, 30 + 30 + 1 + 15]


def test_with_two_players_pending_jacks_never_come_back_to_their_player() -> None:
    game = position(["JH JS 5H", "5C 6C"], top="4H", stock=STOCK, rules=FACE, forfeits=[0, 1])
    play(game, "play JH")
    assert game.to_act == 1 and game.phase is Phase.JACKS and legal_text(game) == ["draw"]


# ------------------------------------------------------------------ queens
def test_queen_of_spades_next_draws_five_and_loses_the_turn() -> None:
    game = position(["QS KC QC", "KH QH 4H", "KD QD 4D"], top="3S", stock=STOCK, rules=FACE)
    events = play(game, "play QS")
    assert draws(events) == [(1, 5, "queen")]
    assert [(e.seat, e.detail) for e in of_kind(events, "skip")] == [(1, "queen")]
    assert game.to_act == 2 and game.phase is Phase.PLAY


@pytest.mark.parametrize("queen", ["QH", "QD", "QC"])
def test_other_queens_do_nothing(queen: str) -> None:
    game = position([f"{queen} KS 4S", "KH 5H 4H", "KD 5D 4D"], top="3" + queen[1], stock=STOCK,
                    rules=FACE)
    events = play(game, f"play {queen}")
    assert draws(events) == [] and not of_kind(events, "skip")
    assert game.to_act == 1 and game.phase is Phase.PLAY


def test_queen_of_spades_as_the_going_out_card() -> None:
    game = position(["QS", "KH", "KD"], top="3S", stock=STOCK, rules=FACE, hand_index=last_hand())
    events = play(game, "play QS")
    assert draws(events) == [(1, 5, "queen")] and game.is_over


@pytest.mark.parametrize(("text", "top"), [("play JD", "3D"), ("play QS", "3S"), ("play KD", "3D")])
def test_face_cards_off_do_nothing(text: str, top: str) -> None:
    c = text.split()[1]
    game = position([f"{c} 4C 5C", "KH 5H 4H", "KD 6D 4D"], top=top, stock=STOCK)
    events = play(game, text)
    assert draws(events) == [] and not of_kind(events, "skip", "king")
    assert game.to_act == 1 and game.phase is Phase.PLAY and game.jack_penalty == 0


# ------------------------------------------------------------------ kings
def test_king_three_more_cards_first_two_without_function_third_with() -> None:
    game = position(
        ["KD 2D 10D 4D 9C", "KH 5H 4H", "KS 6S 4S", "AC JC QC"], top="3D", stock=STOCK,
        rules=FACE,
    )
    events = play(game, "play KD")
    assert game.phase is Phase.KING and game.to_act == 0 and game.king_left == 3
    events += play(game, "play 2D")  # no count
    assert game.phase is Phase.KING and game.count == 0 and game.king_left == 2
    events += play(game, "play 10D")  # no reversal
    assert game.direction == 1 and game.king_left == 1
    events += play(game, "play 4D")  # the third card's function applies: skip seat 1
    assert [e.value for e in of_kind(events, "king")] == [3, 2, 1]
    assert [(e.seat, e.detail) for e in of_kind(events, "skip")] == [(1, "four")]
    assert not of_kind(events, "count", "reverse")
    assert (game.to_act, game.phase, game.king_left) == (2, Phase.PLAY, 0)


def test_king_sequence_keeps_the_suit_choice_of_eights_and_nines() -> None:
    game = position(
        ["KD 8C 9H 7D 5S 4C", "KH 5H 4H", "KS 6S 4S"], top="3D", stock=STOCK, rules=FACE,
    )
    events = play(game, "play KD", "play 8C suit=H")
    assert game.active_suit == 2
    events += play(game, "play 9H suit=D")
    assert game.active_suit == 1
    events += play(game, "play 7D")  # third: the seven's function applies
    assert draws(events) == [(1, 1, "seven")] and game.to_act == 1


@pytest.mark.parametrize("first", ["5D", "7D", "6D"])
def test_king_sequence_first_cards_have_no_draw_or_replay(first: str) -> None:
    game = position([f"KD {first} 3D 3C KC", "KH 5H 4H", "KS 6S 4S"], top="3D", stock=STOCK,
                    rules=FACE)
    events = play(game, "play KD", f"play {first}")
    assert draws(events) == [] and game.king_left == 2 and game.to_act == 0


def test_king_as_the_third_card_starts_another_sequence() -> None:
    game = position(["KD 5D 5S KS 4S 6S", "KH 5H 4H", "KC 6C 4C"], top="3D", stock=STOCK,
                    rules=FACE)
    play(game, "play KD", "play 5D", "play 5S", "play KS")
    assert game.phase is Phase.KING and game.king_left == 3 and game.to_act == 0
    play(game, "play 4S one-card")
    assert game.king_left == 2 and game.to_act == 0  # the 4 as first card skips nobody


def test_king_in_first_or_second_place_does_not_restart() -> None:
    game = position(["KD KS 6S 4S 9C", "KH 5H 4H", "KC 6C 4C"], top="3D", stock=STOCK,
                    rules=FACE)
    play(game, "play KD", "play KS")
    assert game.king_left == 2


def test_king_sequence_unable_draws_one_and_ends() -> None:
    game = position(["KD 5D QC JC", "KH 5H 4H", "KC 6C 4C"], top="3D", stock=STOCK, rules=FACE)
    play(game, "play KD", "play 5D")
    assert legal_text(game) == ["draw"]
    events = play(game, "draw")
    assert draws(events) == [(0, 1, "unable")]
    assert game.king_left == 0 and game.to_act == 1 and game.phase is Phase.PLAY


def test_draw_when_able_applies_to_the_king_sequence() -> None:
    game = position(["KD 5D QC JC", "KH 5H 4H", "KC 6C 4C"], top="3D", stock=STOCK,
                    rules=rules(face_cards=True, draw_when_able=True))
    play(game, "play KD")
    assert legal_text(game) == ["draw", "play 5D"]
    play(game, "draw")
    assert game.king_left == 0 and game.to_act == 1


def test_king_sequence_is_the_same_turn_and_keeps_a_forfeit() -> None:
    game = position(["KD 5D 6D 7D QC", "KH 5H 4H", "KC 6C 4C"], top="3D", stock=STOCK,
                    rules=FACE, forfeits=[1, 0, 0])
    play(game, "play KD", "play 5D", "play 6D")
    assert game.to_act == 0 and game.forfeits == [1, 0, 0]
    play(game, "play 7D one-card")  # third card: the seven
    assert game.to_act == 1 and game.forfeits == [1, 0, 0]


def test_king_third_card_six_plays_again() -> None:
    game = position(["KD 5D 5S 6S 9S QC", "KH 5H 4H", "KC 6C 4C"], top="3D", stock=STOCK,
                    rules=FACE)
    play(game, "play KD", "play 5D", "play 5S", "play 6S")
    assert game.to_act == 0 and game.phase is Phase.PLAY and game.king_left == 0


@pytest.mark.parametrize("last", ["KD", "6D"])
def test_king_or_six_as_the_last_card_ends_the_hand(last: str) -> None:
    game = position([last, "KH 5H", "KC 6C"], top="3D", stock=STOCK, rules=FACE,
                    hand_index=last_hand())
    events = play(game, f"play {last}")
    assert draws(events) == [] and game.is_over
    assert of_kind(events, "went_out")[0].seat == 0


def test_going_out_in_the_middle_of_a_king_sequence() -> None:
    game = position(["KD 5D", "KH 5H", "KC 6C"], top="3D", stock=STOCK, rules=FACE,
                    hand_index=last_hand())
    events = play(game, "play KD one-card", "play 5D")
    assert draws(events) == [] and game.is_over


def test_queen_of_spades_skip_does_not_serve_a_forfeit() -> None:
    game = position(["QS KC QC", "KH QH 4H", "KD QD 4D"], top="3S", stock=STOCK, rules=FACE,
                    forfeits=[0, 1, 0])
    events = play(game, "play QS")
    assert draws(events) == [(1, 5, "queen")]
    assert [(e.seat, e.detail) for e in of_kind(events, "skip")] == [(1, "queen")]
    assert game.to_act == 2 and game.forfeits == [0, 1, 0]
