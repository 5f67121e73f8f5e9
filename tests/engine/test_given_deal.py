"""``Game.dealt``: a hand dealt from chosen cards is logged and played like a shuffled one."""

from __future__ import annotations

import pytest

from craits.engine import Card, Game, preset

FACE_CARDS = preset("standard").replace(face_cards=True)


def _same_deal_given(new: Game, seed: int) -> Game:
    """The first hand of ``new``, dealt again from its own cards through ``Game.dealt``."""
    deals = {e.seat: e.cards for e in new.events if e.kind == "deal"}
    up = next(i for i, e in enumerate(new.events) if e.kind == "upturn")
    drawn = [c for e in new.events[up:] if e.kind == "draw" for c in e.cards]
    return Game.dealt(FACE_CARDS, [deals[s] for s in range(new.players)],
                      new.events[up].cards[0], [*drawn, *reversed(new.stock)],
                      dealer=new.dealer, seed=seed)


@pytest.mark.parametrize("players", [2, 4, 7])
def test_a_given_deal_is_logged_and_carried_out_as_the_shuffled_one(players: int) -> None:
    """Every upturn (count, jacks, suit choice, draws) included, over many seeds."""
    for seed in range(40):
        new = Game.new(FACE_CARDS, players, seed)
        given = _same_deal_given(new, seed)
        start = next(i for i, e in enumerate(new.events) if e.kind == "hand_start")
        assert given.events == new.events[start:]
        assert (given.hands, given.stock, given.discard) == (new.hands, new.stock, new.discard)
        assert (given.to_act, given.phase, given.active_suit, given.count) == (
            new.to_act, new.phase, new.active_suit, new.count)
        assert given.legal_moves() == new.legal_moves()


def test_a_deal_no_shuffle_could_give_is_refused() -> None:
    rules = preset("standard")
    size = rules.hands_in_game()[0]
    deck = [Card(c) for c in range(52)]
    hands = [deck[i * size:(i + 1) * size] for i in range(3)]
    upturn, stock = deck[3 * size], deck[3 * size + 1:]
    game = Game.dealt(rules, hands, upturn, stock, dealer=0)
    deals = {e.seat: list(e.cards) for e in game.events if e.kind == "deal"}
    assert deals == dict(enumerate(hands))
    with pytest.raises(ValueError, match=f"deals {size} cards to each seat"):
        Game.dealt(rules, [hands[0][1:], *hands[1:]], upturn, [hands[0][0], *stock], dealer=0)
    with pytest.raises(ValueError, match="the game's whole deck"):
        Game.dealt(rules, hands, upturn, stock[1:], dealer=0)
    with pytest.raises(ValueError, match="the game's whole deck"):
        Game.dealt(rules, hands, upturn, [deck[0], *stock[1:]], dealer=0)
