"""The scripted positions are the decisions they claim to be, and real, playable games."""

from __future__ import annotations

import pytest

from craits.check.positions import POSITIONS, Position, announces, position
from craits.engine import Move, Phase

EXPECTED = {
    "play": (Phase.PLAY, {"play 7H", "play 3C", *(f"play 8D suit={s}" for s in "CDHS")}),
    "count": (Phase.COUNT, {"play AS", "play 2C"}),
    "count-draw": (Phase.COUNT, {"draw"}),
    "eight": (Phase.PLAY, {f"play 8C suit={s}" for s in "CDHS"}),
    "nine": (Phase.PLAY, {"play 9H", "play 9H suit=D"}),
    "six-again": (Phase.PLAY, {"play 7H", "play 6C"}),
    "one-card": (Phase.PLAY, {"play 7H one-card"}),
    "upturn-8": (Phase.CHOOSE_SUIT, {f"suit {s}" for s in "CDHS"}),
    "upturn-9": (Phase.CHOOSE_SUIT, {"suit S", "suit C"}),
    "draw": (Phase.PLAY, {"draw"}),
    "jacks": (Phase.JACKS, {"play JS"}),
    "king": (Phase.KING, {"play 5H", "play 7H"}),
    "deal-announce": (Phase.PLAY, {"draw one-card"}),
}


def test_every_position_is_listed_here() -> None:
    assert [p.name for p in POSITIONS] == list(EXPECTED)


@pytest.mark.parametrize("pos", POSITIONS, ids=lambda p: p.name)
def test_position_asks_seat_0_the_intended_decision(pos: Position) -> None:
    game = pos.build()
    phase, legal = EXPECTED[pos.name]
    assert game.to_act == 0 and game.phase is phase
    assert {str(m) for m in game.legal_moves()} == legal


@pytest.mark.parametrize("pos", POSITIONS, ids=lambda p: p.name)
def test_every_legal_answer_plays_on(pos: Position) -> None:
    game = pos.build()
    for move in game.legal_moves():
        after = game.clone()
        after.apply(move)
        assert not after.is_over and after.legal_moves()


@pytest.mark.parametrize("pos", POSITIONS, ids=lambda p: p.name)
def test_history_shows_the_deal_the_engine_would_log(pos: Position) -> None:
    game = pos.build()
    kinds = [e.kind for e in game.events]
    assert kinds[:2] == ["hand_start", "shuffle"] and kinds[5] == "upturn"
    deals = {e.seat: e for e in game.events if e.kind == "deal"}
    assert sorted(deals) == [0, 1, 2] and all(e.private for e in deals.values())
    size = game.deal_sizes[game.hand_index]
    assert all(len(e.cards) == size for e in deals.values())
    cards = [c for h in game.hands for c in h] + game.stock + game.discard
    assert sorted(cards) == list(range(52))


def test_announcement_is_judged_beyond_legality() -> None:
    assert announces(Move.parse("play 7H one-card")) is None
    problem = announces(Move.parse("play 7H"))
    assert problem is not None and "does not announce 'one card'" in problem
    assert position("one-card").expect is announces


def test_unknown_position_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="known: play, count"):
        position("nope")
