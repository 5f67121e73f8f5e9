"""Every card's function, table-driven, plus the basic turn (what may be played, drawing)."""

from __future__ import annotations

import pytest

from craits.engine import IllegalMove, Phase, preset

from .helpers import (
    card,
    draws,
    hand_text,
    legal_text,
    move,
    of_kind,
    play,
    position,
    rules,
    snapshot,
)

STOCK = "AC 2C 3C 4C 5C 6C 7C 9C 10C JC"
FILLERS = ["KC QC JH", "KH QH JS", "KS QS 4H", "5S 6S 7S"]


def table(players: int, mover_card: str) -> list[str]:
    """Seat 0 holds ``mover_card`` and two fillers; everyone else holds three fillers."""
    hands = [f"{mover_card} {FILLERS[0]}"]
    hands += [FILLERS[1 + (i % 3)] for i in range(players - 1)]
    return hands


# (players, direction, move, to_act, phase, direction after, active suit after, draws, skipped)
FUNCTION_TABLE = [
    # A, 3, J, Q, K: no function (face cards off): the next player plays.
    (4, 1, "play AD", 1, Phase.PLAY, 1, "D", [], []),
    (4, 1, "play 3H", 1, Phase.PLAY, 1, "H", [], []),
    (4, 1, "play JD", 1, Phase.PLAY, 1, "D", [], []),
    (4, 1, "play QD", 1, Phase.PLAY, 1, "D", [], []),
    (4, 1, "play KD", 1, Phase.PLAY, 1, "D", [], []),
    (4, -1, "play AD", 3, Phase.PLAY, -1, "D", [], []),
    # 2 starts the count with the next player.
    (4, 1, "play 2D", 1, Phase.COUNT, 1, "D", [], []),
    (4, -1, "play 2D", 3, Phase.COUNT, -1, "D", [], []),
    # 4: the next player is skipped.
    (4, 1, "play 4D", 2, Phase.PLAY, 1, "D", [], [1]),
    (4, -1, "play 4D", 2, Phase.PLAY, -1, "D", [], [3]),
    (3, 1, "play 4D", 2, Phase.PLAY, 1, "D", [], [1]),
    (2, 1, "play 4D", 0, Phase.PLAY, 1, "D", [], [1]),
    # 5: every other player draws one, in order of play.
    (4, 1, "play 5D", 1, Phase.PLAY, 1, "D", [(1, 1, "five"), (2, 1, "five"), (3, 1, "five")], []),
    (4, -1, "play 5D", 3, Phase.PLAY, -1, "D", [(3, 1, "five"), (2, 1, "five"), (1, 1, "five")],
     []),
    (2, 1, "play 5D", 1, Phase.PLAY, 1, "D", [(1, 1, "five")], []),
    # 6: the same player plays again.
    (4, 1, "play 6D", 0, Phase.PLAY, 1, "D", [], []),
    (2, -1, "play 6D", 0, Phase.PLAY, -1, "D", [], []),
    # 7: the next player draws one, then takes their turn.
    (4, 1, "play 7D", 1, Phase.PLAY, 1, "D", [(1, 1, "seven")], []),
    (4, -1, "play 7D", 3, Phase.PLAY, -1, "D", [(3, 1, "seven")], []),
    (2, 1, "play 7D", 1, Phase.PLAY, 1, "D", [(1, 1, "seven")], []),
    # 8: wild, names any suit.
    (4, 1, "play 8D suit=S", 1, Phase.PLAY, 1, "S", [], []),
    (4, 1, "play 8D suit=D", 1, Phase.PLAY, 1, "D", [], []),
    (4, 1, "play 8S suit=H", 1, Phase.PLAY, 1, "H", [], []),
    # 9: keep its suit, or switch to the other suit of the same colour.
    (4, 1, "play 9D", 1, Phase.PLAY, 1, "D", [], []),
    (4, 1, "play 9D suit=H", 1, Phase.PLAY, 1, "H", [], []),
    # 10: reverses; with two players the other player still moves next.
    (4, 1, "play 10D", 3, Phase.PLAY, -1, "D", [], []),
    (4, -1, "play 10D", 1, Phase.PLAY, 1, "D", [], []),
    (3, 1, "play 10D", 2, Phase.PLAY, -1, "D", [], []),
    (2, 1, "play 10D", 1, Phase.PLAY, -1, "D", [], []),
    (2, -1, "play 10D", 1, Phase.PLAY, 1, "D", [], []),
]


@pytest.mark.parametrize(
    ("players", "direction", "text", "to_act", "phase", "dir_after", "suit", "drawn", "skipped"),
    FUNCTION_TABLE,
    ids=[f"{r[0]}p-dir{r[1]}-{r[2]}" for r in FUNCTION_TABLE],
)
def test_card_function(
    players: int, direction: int, text: str, to_act: int, phase: Phase, dir_after: int,
    suit: str, drawn: list[tuple[int, int, str]], skipped: list[int],
) -> None:
    m = move(text)
    played = card(str(m.played))
    game = position(table(players, str(played)), top="3D", stock=STOCK, direction=direction)
    sizes = [len(h) for h in game.hands]
    events = play(game, text)
    assert game.top_card == played
    assert game.to_act == to_act
    assert game.phase is phase
    assert game.direction == dir_after
    assert game.active_suit == "CDHS".index(suit)
    assert draws(events) == drawn
    assert [e.seat for e in of_kind(events, "skip")] == skipped
    assert bool(of_kind(events, "reverse")) == (dir_after != direction)
    expected_sizes = list(sizes)
    expected_sizes[0] -= 1
    for seat, n, _ in drawn:
        expected_sizes[seat] += n
    assert [len(h) for h in game.hands] == expected_sizes
    assert game.count == (2 if phase is Phase.COUNT else 0)
    assert game.forfeits == [0] * players


def test_play_event_records_card_and_chosen_suit() -> None:
    game = position(table(3, "8D"), top="3D", stock=STOCK)
    (ev,) = of_kind(play(game, "play 8D suit=C"), "play")
    assert (ev.seat, [str(c) for c in ev.cards], ev.aux, ev.value) == (0, ["8D"], 0, 0)


@pytest.mark.parametrize(
    ("text", "rule"),
    [("play 9D suit=S", "nine"), ("play 9D suit=C", "nine"), ("play 9D suit=D", "nine"),
     ("play 8D", "eight"), ("play 5D suit=H", "a turn"), ("play 10D suit=H", "a turn")],
)
def test_suit_naming_rules(text: str, rule: str) -> None:
    c = str(move(text).played)
    game = position(table(3, c), top="3D", stock=STOCK)
    before = snapshot(game)
    with pytest.raises(IllegalMove) as exc:
        game.apply(move(text))
    assert exc.value.rule == rule
    assert snapshot(game) == before


def test_eight_offers_every_suit_nine_offers_two() -> None:
    game = position(["8D 9S KC QC", "KH", "KS"], top="3D", stock=STOCK)
    assert legal_text(game) == [
        "play 8D suit=C", "play 8D suit=D", "play 8D suit=H", "play 8D suit=S",
    ]
    game = position(["8D 9S KC QC", "KH", "KS"], top="3S", stock=STOCK)
    assert legal_text(game) == [
        "play 8D suit=C", "play 8D suit=D", "play 8D suit=H", "play 8D suit=S",
        "play 9S", "play 9S suit=C",
    ]


# ------------------------------------------------------------------ the six
def test_six_then_unable_draws_one_and_passes() -> None:
    game = position(["6D KC QC JC", "KH QH JH", "KS QS JS"], top="3D", stock=STOCK)
    play(game, "play 6D")
    assert game.to_act == 0 and game.phase is Phase.PLAY
    assert legal_text(game) == ["draw"]
    events = play(game, "draw")
    assert draws(events) == [(0, 1, "unable")]
    assert game.to_act == 1
    assert hand_text(game, 0) == "AC JC KC QC"


def test_six_replay_can_be_another_function_card() -> None:
    game = position(["6D 6C 4C KH", "KH QH JH", "KS QS JS"], top="3D", stock=STOCK)
    play(game, "play 6D", "play 6C")
    assert game.to_act == 0  # the second six plays again too
    play(game, "play 4C")
    assert game.to_act == 2  # the four skipped seat 1


def test_six_replay_is_the_same_turn_and_keeps_a_forfeit() -> None:
    game = position(
        ["6D 5D KC QC", "KH QH JH", "KS QS JS"], top="3D", stock=STOCK, forfeits=[1, 0, 0]
    )
    play(game, "play 6D")
    assert game.to_act == 0 and game.forfeits == [1, 0, 0]
    play(game, "play 5D")
    assert game.to_act == 1 and game.forfeits == [1, 0, 0]
    events = play(game, "draw", "draw")  # seats 1 and 2 cannot play
    assert [(e.seat, e.detail) for e in of_kind(events, "skip")] == [(0, "forfeit")]
    assert game.to_act == 1 and game.forfeits == [0, 0, 0]


# ------------------------------------------------------------------ the seven
def test_seven_victim_takes_a_normal_turn_and_may_play_the_drawn_card() -> None:
    game = position(["7D KC QC", "KH QH JH", "KS QS JS"], top="3D", stock="7C 2C")
    play(game, "play 7D")
    assert game.to_act == 1 and game.phase is Phase.PLAY
    assert hand_text(game, 1) == "7C JH KH QH"
    assert legal_text(game) == ["play 7C"]


def test_seven_victim_with_a_forfeit_draws_and_is_passed() -> None:
    game = position(
        ["7D KC QC", "KH QH JH", "KS QS JS"], top="3D", stock="7C 2C", forfeits=[0, 1, 0]
    )
    events = play(game, "play 7D")
    assert draws(events) == [(1, 1, "seven")]
    assert [(e.seat, e.detail) for e in of_kind(events, "skip")] == [(1, "forfeit")]
    assert game.to_act == 2


# ------------------------------------------------------------------ what may be played
def test_match_rank_or_active_suit_or_eight() -> None:
    # Top 8D but the eight named spades: diamonds no longer match, spades and eights do.
    game = position(["5D 5S 8C 3H", "KH", "KS"], top="8D", active_suit="S", stock=STOCK)
    assert legal_text(game) == [
        "play 5S", "play 8C suit=C", "play 8C suit=D", "play 8C suit=H", "play 8C suit=S",
    ]
    game = position(["5D 5S 4C 3H", "KH", "KS"], top="5H", stock=STOCK)
    assert legal_text(game) == ["play 3H", "play 5D", "play 5S"]


@pytest.mark.parametrize(
    ("preset_name", "expected"),
    [("standard", ["draw"]), ("gamerules", ["draw"]),
     ("spanish", ["play 9H", "play 9H suit=D"])],
)
def test_nines_wild(preset_name: str, expected: list[str]) -> None:
    game = position(
        ["9H 4D KS", "KH", "KD"], top="5C", stock=STOCK, rules=preset(preset_name)
    )
    assert legal_text(game) == expected


def test_nines_wild_as_a_rules_field_on_any_preset() -> None:
    game = position(["9H 4D KS", "KH", "KD"], top="5C", stock=STOCK,
                    rules=preset("gamerules").replace(nines_wild=True))
    assert "play 9H" in legal_text(game)


def test_unable_draws_one_and_the_turn_ends_even_if_it_is_playable() -> None:
    game = position(["KC QC JS", "KH QH JH", "KS QS JD"], top="3D", stock="5D 6C")
    assert legal_text(game) == ["draw"]
    events = play(game, "draw")
    assert draws(events) == [(0, 1, "unable")]
    assert game.to_act == 1 and game.top_card == card("3D")
    assert hand_text(game, 0) == "5D JS KC QC"


def test_drawing_while_able_is_illegal_by_default() -> None:
    game = position(["5D KC QC", "KH", "KS"], top="3D", stock=STOCK)
    before = snapshot(game)
    with pytest.raises(IllegalMove) as exc:
        game.apply(move("draw"))
    assert exc.value.rule == "a turn" and "draw_when_able" in str(exc.value)
    assert snapshot(game) == before


def test_draw_when_able() -> None:
    game = position(["5D KC QC", "KH", "KS"], top="3D", stock=STOCK,
                    rules=rules(draw_when_able=True))
    assert legal_text(game) == ["draw", "play 5D"]
    events = play(game, "draw")
    assert draws(events) == [(0, 1, "unable")] and game.to_act == 1


# ------------------------------------------------------------------ skips and forfeits
def test_a_four_skip_does_not_serve_a_forfeit() -> None:
    game = position(["4D KC QC", "KH QH JH", "KS QS JS"], top="3D", stock=STOCK,
                    forfeits=[0, 1, 0])
    events = play(game, "play 4D")
    assert [(e.seat, e.detail) for e in of_kind(events, "skip")] == [(1, "four")]
    assert game.to_act == 2 and game.forfeits == [0, 1, 0]
    events = play(game, "draw", "draw")  # seats 2 and 0 cannot play
    assert [(e.seat, e.detail) for e in of_kind(events, "skip")] == [(1, "forfeit")]
    assert game.to_act == 2 and game.forfeits == [0, 0, 0]


def test_forfeits_accumulate() -> None:
    game = position(["KC QC", "KH QH JH", "KS QS JS"], top="3D", stock="AC 2C 4C 5C 6C 7C 9C",
                    forfeits=[2, 0, 0], to_act=1)
    events = play(game, "draw", "draw")
    assert [(e.seat, e.detail) for e in of_kind(events, "skip")] == [(0, "forfeit")]
    assert game.to_act == 1 and game.forfeits == [1, 0, 0]
    events = play(game, "draw", "draw")
    assert [(e.seat, e.detail) for e in of_kind(events, "skip")] == [(0, "forfeit")]
    assert game.forfeits == [0, 0, 0]
    play(game, "draw", "draw")
    assert game.to_act == 0
