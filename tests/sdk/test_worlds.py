"""Sampled worlds (``View.sample_world``): they never contradict the view, they respect what the
seat could infer, and over many samples every holding the view allows comes out."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from craits.engine import PRESETS, Card, Game, Rules, observe, preset
from craits_sdk import Choice, View, WorldError, WorldSampler

from .positions import could_follow_3d, shed_low, unable_to_follow

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
    return played_recording(rules, players, seed, moves)[0]


def played_recording(
    rules: Rules, players: int, seed: int, moves: int,
) -> tuple[Game, list[tuple[int, int, int, Counter[int], frozenset[int]]]]:
    """A game after ``moves`` random decisions (or at its last decision), and for each play
    made: the hand it was in, the seat, the card, the cards the seat held and the cards it
    could legally have played."""
    game = Game.new(rules, players, seed)
    rng = random.Random(seed)
    plays: list[tuple[int, int, int, Counter[int], frozenset[int]]] = []
    for _ in range(moves):
        legal = game.legal_moves()
        before = game.clone()
        move = rng.choice(legal)
        seat, hand = game.to_act, game.hand_index
        held: Counter[int] = Counter(game.hands[seat])
        game.apply(move)
        if game.is_over:
            return before, plays
        if move.card >= 0 and game.events[-1].kind != "choose_suit":
            options = frozenset(m.card for m in legal if m.card >= 0)
            plays.append((hand, seat, move.card, held, options))
    return game, plays


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


# ----------------------------------------------------------------- how a world explains plays
@pytest.mark.parametrize(("name", "rules"), CONFIGS, ids=[c[0] for c in CONFIGS])
def test_a_world_explains_each_play_with_what_the_seat_could_have_played(
    name: str, rules: Rules,
) -> None:
    rng = random.Random(f"choices-{name}")
    checked = 0
    for players in (2, 3, 5, 7):
        game, plays = played_recording(rules, players, rng.randrange(10**6), rng.randrange(20, 400))
        viewer = game.to_act
        made = [p for p in plays if p[0] == game.hand_index and p[1] != viewer]
        sampler = view_of(game, viewer).world_sampler()
        for _ in range(3):
            world, choices = sampler.sample_explained(rng, history=False)
            assert len(choices) <= len(made)
            explained = iter(made)
            for choice in choices:
                *_, held, legal = next(p for p in explained
                                       if (p[1], p[2]) == (choice.seat, choice.card))
                assert choice.card in choice.options
                assert not Counter(choice.options) - Counter(choice.held)
                # the options are the world's holding through the rules of that moment, which
                # on the seat's true holding are exactly the engine's legal plays
                assert set(choice.options) == {c for c in choice.held if c in legal} | (
                    set(choice.options) - set(held))
                checked += 1
            _holdings_follow_on(world, choices, sampler)
    assert checked > 0


def _holdings_follow_on(world: Game, choices: tuple[Choice, ...], sampler: WorldSampler) -> None:
    """A seat's holding at each of its plays is its holding at the one before, less the card
    played, plus what it received between (less a play the sampler could not explain: a jack
    on a jack with face cards); and it holds now what it held at its last, less what it played."""
    start = max(i for i, e in enumerate(sampler.history) if e.kind == "hand_start")
    by_seat: dict[int, list[Choice]] = {}
    for choice in choices:
        by_seat.setdefault(choice.seat, []).append(choice)
    for seat, mine in by_seat.items():
        played = Counter(e.cards[0] for e in sampler.history[start:]
                         if e.kind == "play" and e.seat == seat)
        unexplained = played - Counter(c.card for c in mine)
        for before, after in itertools.pairwise(mine):
            kept = Counter(before.held)
            kept[before.card] -= 1
            assert not kept - Counter(after.held) - unexplained
        last = Counter(mine[-1].held)
        last[mine[-1].card] -= 1
        assert not last - Counter(world.hands[seat]) - unexplained


def test_a_world_says_what_the_seat_held_when_it_played() -> None:
    sampler = view_of(shed_low(), 0).world_sampler()
    rng = random.Random(4)
    ace = Card.parse("AD")
    for _ in range(200):
        world, (choice,) = sampler.sample_explained(rng)
        assert (choice.seat, choice.card, choice.suit) == (1, ace, -1)
        assert sorted(choice.held) == sorted([*world.hands[1], ace])  # it has drawn nothing since
        assert choice.options == tuple(c for c in choice.held if could_follow_3d(c))
        assert observe(world, 0) == observe(shed_low(), 0)
