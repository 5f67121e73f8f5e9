""""One card": the announcement, the default penalty (draw 2 + forfeit), ``idiot_card``, and
``announce_on_one_card_deal`` in the 1-card hand."""

from __future__ import annotations

import random

import pytest

from craits.engine import Game, IllegalMove, Phase, preset

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

STOCK = "JC QC KC 4H 6H 7H 9H 10H JH 4C 6C 7C 9C 10C"
ONE_CARD_HAND = 7  # index of the hand dealt one card each


def test_a_play_that_leaves_one_card_must_announce() -> None:
    game = position(["5D 6D KC", "KH QH JH"], top="3D", stock=STOCK)
    assert legal_text(game) == ["play 5D", "play 6D"]  # three cards: no announcement
    game = position(["5D 6D", "KH QH JH"], top="3D", stock=STOCK)
    assert legal_text(game) == ["play 5D one-card", "play 6D one-card"]
    events = play(game, "play 5D one-card")
    assert not of_kind(events, "penalty") and game.forfeits == [0, 0]
    assert of_kind(events, "play")[0].value == 1  # the announcement is in the record


def test_missed_announcement_default_draw_two_and_forfeit_before_the_function() -> None:
    game = position(["5D KC", "KH QH JH", "KS QS JS"], top="3D", stock=STOCK)
    events = play(game, "play 5D")
    (pen,) = of_kind(events, "penalty")
    assert (pen.seat, pen.value, pen.aux, pen.detail) == (0, 2, 1, "one_card")
    # The penalty comes right after the card leaves the hand, before the five's draws.
    assert draws(events) == [(0, 2, "penalty"), (1, 1, "five"), (2, 1, "five")]
    assert [e.kind for e in events][:3] == ["play", "penalty", "draw"]
    assert len(game.hands[0]) == 3 and game.forfeits == [1, 0, 0]
    assert game.to_act == 1
    # Seats 1 and 2 cannot play; seat 0's next turn is forfeited.
    events = play(game, "draw", "draw")
    assert [(e.seat, e.detail) for e in of_kind(events, "skip")] == [(0, "forfeit")]
    assert game.to_act == 1 and game.forfeits == [0, 0, 0]


def test_idiot_card_one_penalty_card_no_forfeit() -> None:
    game = position(["5D KC", "KH QH JH", "KS QS JS"], top="3D", stock=STOCK,
                    rules=rules(idiot_card=True))
    events = play(game, "play 5D")
    (pen,) = of_kind(events, "penalty")
    assert (pen.value, pen.aux) == (1, 0)
    assert draws(events)[0] == (0, 1, "penalty")
    assert len(game.hands[0]) == 2 and game.forfeits == [0, 0, 0]
    play(game, "draw", "draw")
    assert game.to_act == 0  # no forfeited turn


def test_missed_announcement_on_a_six_the_replay_is_the_same_turn() -> None:
    game = position(["6D KD", "KH QH JH", "KS QS JS"], top="3D", stock=STOCK)
    play(game, "play 6D")
    assert game.to_act == 0 and game.forfeits == [1, 0, 0] and len(game.hands[0]) == 3
    play(game, "play KD")
    assert game.to_act == 1 and game.forfeits == [1, 0, 0]


def test_false_announcement_is_illegal_and_changes_nothing() -> None:
    for hands, text in [
        (["5D 6D KC", "KH"], "play 5D one-card"),
        (["KC QC", "KH"], "draw one-card"),
        (["5D", "KH"], "play 5D one-card"),  # going out leaves no card
    ]:
        game = position(hands, top="3D", stock=STOCK)
        before = snapshot(game)
        with pytest.raises(IllegalMove) as exc:
            game.apply(move(text))
        assert exc.value.rule == "one card"
        assert snapshot(game) == before


def test_drawing_needs_no_announcement() -> None:
    game = position(["KC QC", "KH"], top="3D", stock=STOCK)
    assert legal_text(game) == ["draw"]
    events = play(game, "draw")
    assert not of_kind(events, "penalty")


def test_forfeits_reset_at_each_hand_start() -> None:
    game = position(["5D", "KH QH", "KS QS"], top="3D", stock=STOCK, forfeits=[0, 2, 1])
    play(game, "play 5D")
    assert game.hand_index == 1 and game.forfeits == [0, 0, 0]


# ------------------------------------------------------------------ the 1-card deal
def one_card_deal(**changes: object) -> Game:
    return position(
        ["5D", "9C", "KS"], top="3D", stock=STOCK, hand_index=ONE_CARD_HAND,
        announce_pending={0, 1, 2}, rules=rules(announce_on_one_card_deal=True, **changes),
    )


def test_deal_announcement_made_with_the_first_decision() -> None:
    game = one_card_deal()
    assert legal_text(game) == ["play 5D one-card"]
    events = play(game, "play 5D one-card")
    assert not of_kind(events, "penalty")
    assert of_kind(events, "went_out")[0].seat == 0


def test_deal_announcement_missed_penalty_applies_before_the_move() -> None:
    game = one_card_deal()
    events = play(game, "play 5D")
    assert [e.kind for e in events][:3] == ["penalty", "draw", "play"]
    (pen,) = of_kind(events, "penalty")
    assert (pen.seat, pen.value, pen.aux, pen.detail) == (0, 2, 1, "deal_announce")
    assert not of_kind(events, "went_out")  # drew two first, so the five did not go out
    assert len(game.hands[0]) == 2 and game.forfeits == [1, 0, 0]
    assert game.announce_pending == {1, 2}
    # Seat 1 cannot play the five: its first decision is a draw, which must announce too.
    assert legal_text(game) == ["draw one-card"]
    events = play(game, "draw")
    assert of_kind(events, "penalty")[0].detail == "deal_announce"
    assert game.announce_pending == {2}


def test_deal_announcement_idiot_card() -> None:
    game = one_card_deal(idiot_card=True)
    events = play(game, "play 5D")
    (pen,) = of_kind(events, "penalty")
    assert (pen.value, pen.aux) == (1, 0) and game.forfeits == [0, 0, 0]
    assert len(game.hands[0]) == 1  # 1 + 1 penalty - 1 played


def test_deal_announcement_only_once() -> None:
    game = position(
        ["5D 6D 7C", "9C", "KS"], top="3D", stock=STOCK, hand_index=ONE_CARD_HAND,
        announce_pending={0, 1, 2}, rules=rules(announce_on_one_card_deal=True),
    )
    assert legal_text(game) == ["play 5D one-card", "play 6D one-card"]
    play(game, "play 6D one-card")
    assert game.to_act == 0 and 0 not in game.announce_pending
    assert legal_text(game) == ["play 5D one-card"]  # now announced because two cards are left
    game = position(
        ["5D 6D 7C KC", "9C", "KS"], top="3D", stock=STOCK, hand_index=ONE_CARD_HAND,
        announce_pending={0, 1, 2}, rules=rules(announce_on_one_card_deal=True),
    )
    play(game, "play 6D one-card")
    assert legal_text(game) == ["play 5D"]  # three cards left, first decision made


def test_deal_announcement_for_the_dealers_suit_choice() -> None:
    game = position(
        ["5D", "9C", "KS"], top="8D", stock=STOCK, hand_index=ONE_CARD_HAND, to_act=2,
        dealer=2, phase=Phase.CHOOSE_SUIT, announce_pending={0, 1, 2},
        rules=rules(announce_on_one_card_deal=True),
    )
    assert legal_text(game) == [f"suit {s} one-card" for s in "CDHS"]
    events = play(game, "suit C")
    assert of_kind(events, "penalty")[0].seat == 2
    assert game.active_suit == 0 and game.to_act == 0


def advance_to_hand(game: Game, index: int, rng: random.Random) -> None:
    while game.hand_index < index and not game.is_over:
        moves = game.legal_moves()
        game.apply(moves[rng.randrange(len(moves))])


@pytest.mark.parametrize("variant", [False, True])
def test_deal_announcement_pending_only_in_the_one_card_hand(variant: bool) -> None:
    r = rules(announce_on_one_card_deal=variant, short_game=True, max_turns_per_hand=60)
    rng = random.Random(5)
    game = Game.new(r, 4, seed=11)
    seen_pending = False
    while not game.is_over:
        if game.hand_index != ONE_CARD_HAND:
            assert game.announce_pending == set()
        elif game.announce_pending:
            seen_pending = True
            if game.to_act in game.announce_pending:
                assert all(m.one_card for m in game.legal_moves())
        moves = game.legal_moves()
        game.apply(moves[rng.randrange(len(moves))])
    assert seen_pending == variant


def test_deal_announcement_dealt_hand_has_every_seat_pending() -> None:
    r = preset("standard").replace(announce_on_one_card_deal=True, max_turns_per_hand=40)
    for seed in range(5):
        game = Game.new(r, 3, seed)
        advance_to_hand(game, ONE_CARD_HAND, random.Random(seed))
        # Stopped right after the 1-card deal and its upturn: nobody has decided yet.
        assert game.hand_index == ONE_CARD_HAND
        assert game.announce_pending == {0, 1, 2}
        last_start = max(i for i, e in enumerate(game.events) if e.kind == "hand_start")
        deals = of_kind(game.events[last_start:], "deal")
        assert sorted(e.seat for e in deals) == [0, 1, 2] and {e.value for e in deals} == {1}
        assert all(m.one_card for m in game.legal_moves())


def test_deal_announcement_not_owed_by_players_who_never_decided() -> None:
    game = one_card_deal()
    game.hand_index = last_hand()  # end the game with this hand
    events = play(game, "play 5D one-card")
    assert not of_kind(events, "penalty")
    assert game.is_over
