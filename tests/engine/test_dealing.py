"""Setup: decks, the first-dealer draw, deal sizes, the dealer's upturned card, dealer rotation."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from craits.engine import Game, Phase, Rules, preset
from craits.engine.cards import DRAW_ORDER, RANK, build_deck

from .helpers import (
    all_cards,
    card,
    cards,
    deck_size,
    find_upturn,
    legal_text,
    of_kind,
    play,
    position,
    rules,
)

STANDARD = preset("standard")


# ------------------------------------------------------------------ decks
@pytest.mark.parametrize("players", range(2, 11))
def test_deck_by_player_count(players: int) -> None:
    game = Game.new(STANDARD, players, seed=players)
    decks = 1 if players <= 5 else 2
    assert len(all_cards(game)) == 52 * decks
    assert all_cards(game) == sorted(build_deck(decks))
    counts = Counter(all_cards(game))
    assert set(counts.values()) == {decks}


@pytest.mark.parametrize(("players", "size"), [(2, 44), (3, 44), (4, 52), (5, 52), (6, 104)])
def test_remove_kings_queens_only_with_two_or_three_players(players: int, size: int) -> None:
    game = Game.new(rules(remove_kings_queens=True), players, seed=3)
    assert len(all_cards(game)) == size == deck_size(game.rules, players)
    ranks = {RANK[c] for c in all_cards(game)}
    assert (12 in ranks and 13 in ranks) == (size != 44)


def test_two_to_ten_players_only() -> None:
    for bad in (0, 1, 11):
        with pytest.raises(ValueError, match="2 to 10"):
            Game.new(STANDARD, bad, seed=0)


# ------------------------------------------------------------------ the first dealer
def strength(c: int) -> int:
    return DRAW_ORDER[RANK[c]]


def test_draw_order_two_low_ace_high() -> None:
    texts = ["AS", "KS", "QS", "JS", "10S", "9S", "3S", "2S"]
    order = sorted(texts, key=lambda t: strength(card(t)))
    assert order == ["2S", "3S", "9S", "10S", "JS", "QS", "KS", "AS"]


def first_dealer_rounds(game: Game) -> list[dict[int, int]]:
    rounds: dict[int, dict[int, int]] = {}
    for e in of_kind(game.events, "dealer_draw"):
        rounds.setdefault(e.value, {})[e.seat] = e.cards[0]
    return [rounds[k] for k in sorted(rounds)]


@pytest.mark.parametrize("players", [2, 3, 5, 7, 10])
def test_first_dealer_lowest_deals_ties_redraw(players: int) -> None:
    saw_tie = False
    for seed in range(60):
        game = Game.new(STANDARD, players, seed)
        rounds = first_dealer_rounds(game)
        assert set(rounds[0]) == set(range(players))  # everyone draws in the first round
        for before, after in itertools.pairwise(rounds):
            low = min(strength(c) for c in before.values())
            assert set(after) == {s for s, c in before.items() if strength(c) == low}
            saw_tie = True
        last = rounds[-1]
        low = min(strength(c) for c in last.values())
        (dealer,) = [s for s, c in last.items() if strength(c) == low]
        assert game.dealer == dealer
        assert of_kind(game.events, "first_dealer")[0].seat == dealer
        assert of_kind(game.events, "hand_start")[0].seat == dealer
        assert len({c for r in rounds for c in r.values()}) <= 52  # distinct draws, one deck
    assert saw_tie


def test_first_dealer_ace_is_high() -> None:
    # A seed where someone drew an ace and someone a lower card: the ace never deals.
    found = 0
    for seed in range(300):
        game = Game.new(STANDARD, 2, seed)
        r = first_dealer_rounds(game)[0]
        if sorted(RANK[c] for c in r.values()) == [1, 2]:
            ace_seat = next(s for s, c in r.items() if RANK[c] == 1)
            assert game.dealer != ace_seat
            found += 1
    assert found


# ------------------------------------------------------------------ deal sizes
def hand_starts(r: Rules, players: int, seed: int) -> tuple[Game, list[int]]:
    game = Game.new(r, players, seed)
    rng = random.Random(seed)
    while not game.is_over:
        moves = game.legal_moves()
        game.apply(moves[rng.randrange(len(moves))])
    return game, [e.value for e in of_kind(game.events, "hand_start")]


def test_full_game_deal_sizes() -> None:
    game, sizes = hand_starts(rules(max_turns_per_hand=40), 4, 1)
    assert sizes == [8, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7, 8]
    assert [e.aux for e in of_kind(game.events, "hand_start")] == list(range(1, 16))
    assert game.outcome is not None and game.outcome.hands_played == 15


def test_short_game_deal_sizes() -> None:
    game, sizes = hand_starts(rules(short_game=True, max_turns_per_hand=40), 3, 2)
    assert sizes == [8, 7, 6, 5, 4, 3, 2, 1]
    assert game.outcome is not None and game.outcome.hands_played == 8


@pytest.mark.parametrize("players", [2, 4, 6, 10])
def test_each_player_is_dealt_the_deal_size_starting_left_of_the_dealer(players: int) -> None:
    game = Game.new(STANDARD, players, seed=9)
    deals = of_kind(game.events, "deal")
    d = game.dealer
    assert [e.seat for e in deals] == [(d + i) % players for i in range(1, players + 1)]
    assert all(e.value == 8 and len(e.cards) == 8 and e.private for e in deals)
    upturn = of_kind(game.events, "upturn")[0]
    assert upturn.seat == d and game.discard[0] == upturn.cards[0]
    assert len(game.stock) == 52 * game.decks - 8 * players - 1 - sum(
        e.value for e in of_kind(game.events, "draw")
    )


# ------------------------------------------------------------------ the upturned card
UPTURN_TABLE = [
    # (want, rules, players, to_act offset from dealer, phase, non-dealer extra cards)
    (1, STANDARD, 4, 1, Phase.PLAY, {}),
    (3, STANDARD, 4, 1, Phase.PLAY, {}),
    (2, STANDARD, 4, 1, Phase.COUNT, {}),
    (4, STANDARD, 4, 2, Phase.PLAY, {}),
    (4, STANDARD, 2, 0, Phase.PLAY, {}),
    (5, STANDARD, 4, 1, Phase.PLAY, {1: 1, 2: 1, 3: 1}),
    (6, STANDARD, 4, 0, Phase.PLAY, {}),
    (7, STANDARD, 4, 1, Phase.PLAY, {1: 1}),
    (8, STANDARD, 4, 0, Phase.CHOOSE_SUIT, {}),
    (9, STANDARD, 4, 0, Phase.CHOOSE_SUIT, {}),
    (10, STANDARD, 4, -1, Phase.PLAY, {}),
    (10, STANDARD, 2, 1, Phase.PLAY, {}),
    (11, STANDARD, 4, 1, Phase.PLAY, {}),
    (12, STANDARD, 4, 1, Phase.PLAY, {}),
    (13, STANDARD, 4, 1, Phase.PLAY, {}),
    (11, rules(face_cards=True), 4, 1, Phase.JACKS, {}),
    ("QS", rules(face_cards=True), 4, 2, Phase.PLAY, {1: 5}),
    ("QH", rules(face_cards=True), 4, 1, Phase.PLAY, {}),
    (13, rules(face_cards=True), 4, 0, Phase.KING, {}),
]


@pytest.mark.parametrize(
    ("want", "r", "players", "offset", "phase", "extra"), UPTURN_TABLE,
    ids=[f"{w}-{r.face_cards}-{p}p" for w, r, p, *_ in UPTURN_TABLE],
)
def test_upturned_card_is_the_dealers_play(
    want: str | int, r: Rules, players: int, offset: int, phase: Phase, extra: dict[int, int]
) -> None:
    game = find_upturn(want, r, players)
    d = game.dealer
    assert game.to_act == (d + offset) % players
    assert game.phase is phase
    sizes = [len(h) for h in game.hands]
    assert sizes == [8 + extra.get((s - d) % players, 0) for s in range(players)]
    assert game.direction == (-1 if RANK[game.top_card] == 10 else 1)
    assert game.count == (2 if phase is Phase.COUNT else 0)
    assert game.jack_penalty == (2 if phase is Phase.JACKS else 0)
    assert game.king_left == (3 if phase is Phase.KING else 0)
    assert game.active_suit == game.top_card.suit


def test_upturned_eight_dealer_names_any_suit() -> None:
    game = find_upturn(8)
    d, top = game.dealer, game.top_card
    assert legal_text(game) == [f"suit {s}" for s in "CDHS"]
    other = "CDHS"[(top.suit + 1) % 4]
    events = play(game, f"suit {other}")
    assert of_kind(events, "choose_suit")[0].seat == d
    assert game.active_suit == "CDHS".index(other)
    assert game.to_act == (d + 1) % 4 and game.phase is Phase.PLAY


def test_upturned_nine_dealer_keeps_or_switches_to_the_same_colour() -> None:
    game = find_upturn(9)
    top = game.top_card
    same = {"C": "S", "S": "C", "D": "H", "H": "D"}[str(top)[-1]]
    assert legal_text(game) == sorted([f"suit {str(top)[-1]}", f"suit {same}"])
    play(game, f"suit {same}")
    assert game.active_suit == "CDHS".index(same)


def set_hand(game: Game, seat: int, text: str) -> None:
    game.hands[seat] = cards(text)
    game._legal = None


def off_suit(game: Game) -> str:
    """A suit letter other than the top card's."""
    return "CDHS"[(game.top_card.suit + 1) % 4]


def test_upturned_six_dealer_plays_again() -> None:
    game = find_upturn(6, players=3)
    d, suit = game.dealer, "CDHS"[game.top_card.suit]
    assert game.to_act == d and game.phase is Phase.PLAY
    set_hand(game, d, f"4{suit} K{off_suit(game)} Q{off_suit(game)}")
    assert legal_text(game) == [f"play 4{suit}"]
    play(game, f"play 4{suit}")
    assert game.to_act == (d + 2) % 3  # the dealer's four skipped the dealer's left


def test_upturned_six_dealer_unable_draws_one_and_passes() -> None:
    game = find_upturn(6, players=3)
    d = game.dealer
    set_hand(game, d, f"K{off_suit(game)} Q{off_suit(game)}")
    assert legal_text(game) == ["draw"]
    play(game, "draw")
    assert game.to_act == (d + 1) % 3 and len(game.hands[d]) == 3


def test_upturned_two_starts_the_count_from_the_dealers_left() -> None:
    game = find_upturn(2, players=3)
    left = (game.dealer + 1) % 3
    set_hand(game, left, "AC KC QC")
    assert game.to_act == left and legal_text(game) == ["play AC"]
    play(game, "play AC")
    assert game.count == 3 and game.phase is Phase.COUNT


# ------------------------------------------------------------------ the next dealer
def end_hand(direction: int, last: str = "AD", **changes: object) -> Game:
    game = position(["KC QC", last, "KS QS", "KH QH"], top="3D", to_act=1, dealer=2,
                    direction=direction, rules=rules(**changes))
    play(game, f"play {last}")
    assert game.hand_index == 1
    return game


def deal_order(game: Game) -> list[int]:
    start = max(i for i, e in enumerate(game.events) if e.kind == "hand_start")
    return [e.seat for e in of_kind(game.events[start:], "deal")]


@pytest.mark.parametrize("direction", [1, -1])
def test_next_dealer_is_to_the_left_by_default(direction: int) -> None:
    game = end_hand(direction)
    assert game.dealer == 3
    assert of_kind(game.events, "hand_start")[-1].seat == 3
    assert deal_order(game) == [0, 1, 2, 3]


def test_dealer_follows_direction_clockwise_end() -> None:
    game = end_hand(1, dealer_follows_direction=True)
    assert game.dealer == 3 and deal_order(game) == [0, 1, 2, 3]


def test_dealer_follows_direction_counter_clockwise_end() -> None:
    game = end_hand(-1, dealer_follows_direction=True)
    assert game.dealer == 1 and deal_order(game) == [0, 3, 2, 1]


def test_dealer_follows_direction_a_ten_as_last_card_makes_it_counter_clockwise() -> None:
    game = end_hand(1, last="10D", dealer_follows_direction=True)
    assert game.dealer == 1 and deal_order(game) == [0, 3, 2, 1]


def test_dealer_follows_direction_play_still_starts_clockwise() -> None:
    # Try seeds until the second hand's upturn has no function: play starts left of the dealer.
    for seed in range(200):
        game = position(["KC QC", "AD", "KS QS", "KH QH"], top="3D", to_act=1, dealer=2,
                        direction=-1, rules=rules(dealer_follows_direction=True), seed=seed)
        play(game, "play AD")
        if RANK[game.top_card] in (1, 3, 11, 12, 13):
            assert game.dealer == 1
            assert game.direction == 1 and game.to_act == 2 and game.phase is Phase.PLAY
            return
    raise AssertionError("no plain upturn found")


def test_dealer_rotation_over_a_whole_game() -> None:
    game, _ = hand_starts(rules(max_turns_per_hand=30), 3, 4)
    dealers = [e.seat for e in of_kind(game.events, "hand_start")]
    assert dealers == [(dealers[0] + i) % 3 for i in range(15)]


def test_first_dealer_draw_uses_the_full_deck_even_without_kings_and_queens() -> None:
    r = rules(remove_kings_queens=True)
    drawn = set()
    for seed in range(40):
        game = Game.new(r, 2, seed)
        drawn |= {RANK[e.cards[0]] for e in of_kind(game.events, "dealer_draw")}
        assert len(all_cards(game)) == 44
    assert {12, 13} <= drawn
