"""Sampled worlds (``View.sample_world``): they never contradict the view, they respect what the
seat could infer, and over many samples every holding the view allows comes out."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from craits.engine import PRESETS, Card, Game, Move, Rules, observe, preset
from craits.engine.cards import RANK, SUIT, build_deck
from craits_sdk import View, WorldError

VARIANTS = (
    "face_cards", "short_game", "remove_kings_queens", "dealer_follows_direction",
    "draw_when_able", "idiot_card", "announce_on_one_card_deal", "count_out_continues",
)
CONFIGS: list[tuple[str, Rules]] = [
    *((name, rules) for name, rules in PRESETS.items()),
    *((v, preset("standard").replace(**{v: True})) for v in VARIANTS),
]


def played_to(rules: Rules, players: int, seed: int, moves: int) -> Game:
    """A game after ``moves`` random decisions (or at its last decision)."""
    game = Game.new(rules, players, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        legal = game.legal_moves()
        before = game.clone()
        game.apply(rng.choice(legal))
        if game.is_over:
            return before
    return game


def view_of(game: Game, seat: int) -> View:
    return View.from_observation(observe(game, seat), game.rules)


@pytest.mark.parametrize(("name", "rules"), CONFIGS, ids=[c[0] for c in CONFIGS])
def test_a_sampled_world_shows_the_seat_exactly_what_it_saw(name: str, rules: Rules) -> None:
    rng = random.Random(name)
    for players in range(2, 11):
        game = played_to(rules, players, rng.randrange(10**6), rng.randrange(1, 500))
        for seat in {game.to_act, (game.to_act + 1) % players}:
            sampler = view_of(game, seat).world_sampler()
            for _ in range(3):
                world = sampler.sample(rng)
                assert observe(world, seat) == observe(game, seat)
                assert _hidden(world, seat) == _hidden(game, seat)


def _hidden(game: Game, seat: int) -> Counter[int]:
    """The cards ``seat`` cannot see: the other hands and the stock, as one multiset."""
    cards: Counter[int] = Counter(game.stock)
    for other, hand in enumerate(game.hands):
        if other != seat:
            cards.update(hand)
    return cards


@pytest.mark.parametrize("players", [2, 4, 7, 10])
def test_a_sampled_world_plays_on_to_the_end_of_the_game(players: int) -> None:
    rng = random.Random(players)
    game = played_to(preset("standard"), players, players, 150)
    world = view_of(game, game.to_act).sample_world(rng)
    hand = world.hand_index
    while not world.is_over:
        world.apply(rng.choice(world.legal_moves()))
    assert world.outcome is not None
    assert world.outcome.hands_played == len(world.deal_sizes) > hand + 1


def test_the_future_is_drawn_afresh_for_each_world() -> None:
    game = played_to(preset("standard"), 3, 5, 20)
    sampler = view_of(game, game.to_act).world_sampler()
    seeds = {sampler.sample(random.Random(i)).seed for i in range(5)}
    assert len(seeds) == 5


def cards(text: str) -> list[Card]:
    return [Card.parse(t) for t in text.split()]


def unable_to_follow() -> Game:
    """Two players, seat 1 deals; seat 0 plays 3D on the upturned 3C and seat 1, holding no
    three, no diamond and no eight, draws. Seat 0 is to act."""
    mine, theirs = cards("3D KH KS QH QS JH JS 10H"), cards("AH 2H 4H 5H 6H 7H 9H AS")
    upturn = Card.parse("3C")
    rest = [c for c in build_deck(1) if c not in {*mine, *theirs, upturn}]
    random.Random(0).shuffle(rest)
    game = Game.dealt(preset("standard"), [mine, theirs], upturn, rest, dealer=1)
    game.apply(Move.play(Card.parse("3D")))
    game.apply(Move.draw())
    assert game.to_act == 0
    return game


def could_follow_3d(card: int) -> bool:
    return RANK[card] in (3, 8) or SUIT[card] == 1


def test_a_seat_that_drew_for_want_of_a_card_held_none_that_it_could_play() -> None:
    game = unable_to_follow()
    sampler = view_of(game, 0).world_sampler()
    rng = random.Random(1)
    in_hand: Counter[int] = Counter()
    in_stock: Counter[int] = Counter()
    followers = []
    for _ in range(600):
        world = sampler.sample(rng, history=False)
        followers.append(sum(map(could_follow_3d, world.hands[1])))
        in_hand.update(world.hands[1])
        in_stock.update(world.stock)
    assert max(followers) == 1  # only the card drawn after the check may follow 3D
    assert min(followers) == 0
    unseen = set(_hidden(game, 0))
    assert set(in_stock) == unseen  # no card stuck in one place
    assert set(in_hand) == unseen  # a card that could follow 3D may still be the one drawn


def test_with_draw_when_able_a_draw_says_nothing() -> None:
    game = unable_to_follow()
    game.rules = game.rules.replace(draw_when_able=True)  # the same history, read as optional
    sampler = view_of(game, 0).world_sampler()
    rng = random.Random(2)
    most = max(sum(map(could_follow_3d, sampler.sample(rng).hands[1])) for _ in range(300))
    assert most >= 2


def test_every_holding_of_the_unseen_cards_comes_out_at_the_start_of_a_hand() -> None:
    game = played_to(preset("standard").replace(short_game=True), 2, 9, 0)
    assert game.hand_index == 0
    seat = game.to_act
    sampler = view_of(game, seat).world_sampler()
    rng = random.Random(3)
    where: dict[int, set[str]] = {c: set() for c in _hidden(game, seat)}
    for _ in range(800):
        world = sampler.sample(rng, history=False)
        for card in world.hands[1 - seat]:
            where[card].add("hand")
        for card in world.stock:
            where[card].add("stock")
    assert all(places == {"hand", "stock"} for places in where.values())


def test_a_view_missing_history_is_refused_clearly() -> None:
    game = played_to(preset("standard"), 3, 4, 30)
    view = view_of(game, game.to_act)
    view.game.missing_events = 5
    with pytest.raises(WorldError, match="never reached the bot"):
        view.world_sampler()
