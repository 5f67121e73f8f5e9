"""Text forms of cards, suits and moves round-trip; malformed text gives a clear error."""

from __future__ import annotations

import pytest

from craits.engine import (
    CARDS,
    Card,
    CardError,
    Event,
    Move,
    MoveError,
    MoveKind,
    format_cards,
    parse_cards,
    parse_suit,
)


def test_every_card_round_trips() -> None:
    texts = [str(c) for c in CARDS]
    assert len(set(texts)) == 52
    for c in CARDS:
        assert Card.parse(str(c)) == c
        assert Card.parse(str(c)) is c  # interned


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [("10H", 10, 2), ("QS", 12, 3), ("AD", 1, 1), ("8C", 8, 0), ("2s", 2, 3), ("th", 10, 2),
     (" kd ", 13, 1), ("JC", 11, 0)],
)
def test_card_parse(text: str, rank: int, suit: int) -> None:
    c = Card.parse(text)
    assert (c.rank, c.suit) == (rank, suit)


@pytest.mark.parametrize(("text", "out"), [("10H", "10H"), ("th", "10H"), ("qs", "QS")])
def test_card_text_is_canonical(text: str, out: str) -> None:
    assert str(Card.parse(text)) == out


@pytest.mark.parametrize("text", ["", "H", "1H", "11H", "10X", "ZZ", "AHH", "0S", "14C"])
def test_bad_card_text(text: str) -> None:
    with pytest.raises(CardError):
        Card.parse(text)


def test_card_of_rejects_out_of_range() -> None:
    with pytest.raises(CardError):
        Card.of(14, 0)
    with pytest.raises(CardError):
        Card.of(1, 4)


def test_parse_and_format_cards() -> None:
    cs = parse_cards(["AH", "10s", "8C"])
    assert format_cards(cs) == "AH 10S 8C"
    assert parse_suit("h") == 2
    with pytest.raises(CardError):
        parse_suit("X")
    with pytest.raises(CardError):
        parse_suit("HS")


MOVE_TEXTS = [
    "play 7H", "play 10H", "play QS", "play 8C suit=H", "play 9H suit=D", "play 4S one-card",
    "play 8C suit=H one-card", "draw", "draw one-card", "suit H", "suit C one-card",
]


@pytest.mark.parametrize("text", MOVE_TEXTS)
def test_move_round_trips(text: str) -> None:
    m = Move.parse(text)
    assert str(m) == text
    assert Move.parse(str(m)) is m  # interned: parsing twice gives the same object


@pytest.mark.parametrize(
    ("text", "canonical"),
    [("PLAY 10h", "play 10H"), ("play 8h suit=c", "play 8H suit=C"), ("play th", "play 10H"),
     ("  draw  ", "draw"), ("play 4s one_card", "play 4S one-card"), ("SUIT d", "suit D")],
)
def test_move_parse_is_lenient_and_prints_canonically(text: str, canonical: str) -> None:
    assert str(Move.parse(text)) == canonical


def test_move_fields() -> None:
    m = Move.parse("play 8C suit=H one-card")
    assert m.kind is MoveKind.PLAY
    assert m.played == Card.parse("8C")
    assert m.suit == 2 and m.one_card
    assert m.announced(False) == Move.parse("play 8C suit=H")
    assert Move.parse("draw").played is None
    assert Move.draw() is Move.parse("draw")
    assert Move.choose_suit(3) is Move.parse("suit S")
    assert Move.play(Card.parse("QS")) is Move.parse("play QS")


@pytest.mark.parametrize(
    "text",
    ["", "one-card", "jump", "play", "play 8C suit=H extra", "play ZZ", "play 8C colour=H",
     "play 8C suit=X", "draw 2", "suit", "suit Q", "suit H S"],
)
def test_bad_move_text(text: str) -> None:
    with pytest.raises(MoveError):
        Move.parse(text)


def test_event_dict_round_trip() -> None:
    events = [
        Event("play", 2, (Card.parse("8C"),), 1, 2),
        Event("draw", 1, tuple(parse_cards(["AH", "2S"])), 2, -1, "count", True),
        Event("hand_end", -1, (), 3, -1, "out"),
        Event("choose_suit", 0, aux=3),
        Event("hand_score", 1, (), -10, -35),  # a negative running total survives
        Event("hand_score", 1, (), -10, -1),
        Event("final", 0, (), -7, 1),
    ]
    for e in events:
        assert Event.from_dict(e.to_dict()) == e
    assert events[0].to_dict()["suit"] == "H"


def test_private_event_is_redacted_for_others_only() -> None:
    e = Event("draw", 1, tuple(parse_cards(["AH", "2S"])), 2, -1, "unable", True)
    assert e.seen_by(1) == e
    seen = e.seen_by(0)
    assert seen.cards == () and seen.value == 2 and seen.seat == 1
    public = Event("play", 1, (Card.parse("AH"),))
    assert public.seen_by(0) == public
