"""Seeded random playouts over every preset and many variants, 2-10 players, checking invariants
at every step: cards are conserved, a live game always has a legal move, phases are consistent,
every game ends, replays reproduce the event log, and observations never show another seat's
private cards.

Random players also skip their "one card" announcements now and then, so penalties, forfeits and
shuffle pressure all occur.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest

from craits.engine import (
    Event,
    Game,
    GameRecord,
    Move,
    Phase,
    Rules,
    hand_score,
    observe,
    preset,
    replay,
)
from craits.engine.cards import RANK, Card, build_deck

from .helpers import all_cards, deck_size

PUBLIC_CARD_KINDS = frozenset({"play", "upturn", "dealer_draw", "hand_score"})
"""Events whose cards everybody sees, by the rules (played, turned up, drawn for the deal,
shown when a hand is scored)."""
PRIVATE_KINDS = frozenset({"deal", "draw"})

STANDARD, GAMERULES, SPANISH = preset("standard"), preset("gamerules"), preset("spanish")
EVERYTHING = dict(
    face_cards=True, announce_on_one_card_deal=True, count_out_continues=True,
    draw_when_able=True, dealer_follows_direction=True, remove_kings_queens=True,
    idiot_card=True, nines_wild=True,
)

CONFIGS: dict[str, tuple[Rules, int]] = {
    # name: (rules, games per player count). Full-length games with the default turn cap ...
    "standard": (STANDARD, 3),
    "gamerules": (GAMERULES, 2),
    "spanish": (SPANISH, 2),
    "standard+face": (STANDARD.replace(face_cards=True), 3),
    "spanish+face+idiot+deal_announce": (SPANISH.replace(
        face_cards=True, idiot_card=True, announce_on_one_card_deal=True), 2),
    "standard+no_kq+dealer_dir+count_out": (STANDARD.replace(
        remove_kings_queens=True, dealer_follows_direction=True, count_out_continues=True), 2),
    # ... then many more games with tighter caps (every hand still starts from a real deal).
    "gamerules+face+draw_when_able+cap60": (GAMERULES.replace(
        face_cards=True, draw_when_able=True, max_turns_per_hand=60), 6),
    "standard+face+count_out+idiot+cap60": (STANDARD.replace(
        face_cards=True, count_out_continues=True, idiot_card=True, max_turns_per_hand=60), 6),
    "spanish+no_kq+dealer_dir+deal_announce+cap60": (SPANISH.replace(
        remove_kings_queens=True, dealer_follows_direction=True,
        announce_on_one_card_deal=True, max_turns_per_hand=60), 6),
    "gamerules+short+everything+cap60": (GAMERULES.replace(
        short_game=True, max_turns_per_hand=60, **EVERYTHING), 12),
    "standard+short+face+deal_announce+cap60": (STANDARD.replace(
        short_game=True, face_cards=True, announce_on_one_card_deal=True,
        max_turns_per_hand=60), 12),
    "standard+face+cap25": (STANDARD.replace(face_cards=True, max_turns_per_hand=25), 20),
    "gamerules+face+deal_announce+idiot+cap25": (GAMERULES.replace(
        face_cards=True, announce_on_one_card_deal=True, idiot_card=True,
        max_turns_per_hand=25), 20),
    "spanish+draw_when_able+count_out+cap25": (SPANISH.replace(
        draw_when_able=True, count_out_continues=True, max_turns_per_hand=25), 20),
    "spanish+short+face+cap12": (SPANISH.replace(
        short_game=True, face_cards=True, max_turns_per_hand=12), 60),
    "standard+short+everything+cap12": (STANDARD.replace(
        short_game=True, max_turns_per_hand=12, **EVERYTHING), 60),
}
PLAYERS = range(2, 11)
assert sum(games for _, games in CONFIGS.values()) * len(PLAYERS) >= 2000, (
    "the random playouts are meant to cover thousands of games: keep CONFIGS that large")
VIEW_EVERY = 4
"""Every seat's observation is checked against every event in one game out of this many."""
SKIP_ANNOUNCEMENT = 0.15


def choose(game: Game, rng: random.Random) -> Move:
    moves = game.legal_moves()
    m = moves[rng.randrange(len(moves))]
    if m.one_card and rng.random() < SKIP_ANNOUNCEMENT:
        return m.announced(False)  # legal but penalised
    return m


def check_state(game: Game, size: int) -> None:
    assert sum(map(len, game.hands)) + len(game.stock) + len(game.discard) == size
    if game.is_over:
        assert game.legal_moves() == []
        return
    legal = game.legal_moves()
    assert legal, "a live game must always offer a legal move"
    assert len(set(legal)) == len(legal)
    phase, seat = game.phase, game.to_act
    assert 0 <= seat < game.players and game.discard
    assert (phase is Phase.COUNT) == (game.count > 0)
    assert (phase is Phase.JACKS) == (game.jack_penalty > 0)
    assert (phase is Phase.KING) == (game.king_left > 0)
    if phase in (Phase.JACKS, Phase.KING):
        assert game.rules.face_cards
    if phase is Phase.CHOOSE_SUIT:
        assert seat == game.dealer and RANK[game.top_card] in (8, 9)
    if not game.hands[seat]:
        # Only the player who went out during the count can be asked to act empty-handed.
        assert phase is Phase.COUNT and game.out_in_count
    assert min(game.forfeits) >= 0
    assert game.turns_in_hand < game.rules.max_turns_per_hand


def check_views(game: Game, since: int) -> None:
    """Every seat's view of the events from ``since`` on, and of the current state."""
    for viewer in range(game.players):
        obs = observe(game, viewer, since)
        assert list(obs.hand) == sorted(game.hands[viewer])
        assert obs.hand_sizes == tuple(len(h) for h in game.hands)
        assert bool(obs.legal_moves) == (viewer == game.to_act and not game.is_over)
        for original, seen in zip(game.events[since:], obs.events, strict=True):
            if original.private and original.seat != viewer:
                assert seen.cards == () and seen.value == original.value
            else:
                assert seen == original
            if seen.cards and seen.seat != viewer:
                assert seen.kind in PUBLIC_CARD_KINDS, seen


def check_events(game: Game, since: int) -> None:
    events, n = game.events, game.players
    for i in range(since, len(events)):
        e = events[i]
        if e.kind in PRIVATE_KINDS:
            assert e.private and 0 <= e.seat < n
        elif e.cards:
            assert not e.private and e.kind in PUBLIC_CARD_KINDS, e
        if e.kind == "hand_end":
            # Every seat is scored, on the cards it holds (shown to all) or as having gone out.
            scores = events[i - n:i]
            assert [x.seat for x in scores] == list(range(n))
            out = game.rules.going_out_points if going_out(events, i, game.rules) else 0
            for x in scores:
                assert x.kind == "hand_score"
                assert x.value == (hand_score(x.cards, game.rules) if x.cards else out)


def going_out(events: list[Event], hand_end: int, rules: Rules) -> bool:
    """False when the hand ended as the count came round to a player who went out during it:
    then nobody scores the going-out points (RULINGS), unless ``count_out_continues``."""
    if rules.count_out_continues:
        return True
    start = max(i for i in range(hand_end) if events[i].kind == "hand_start")
    last = next(e for e in reversed(events[start:hand_end]) if e.kind != "hand_score")
    if last.kind != "count_end":
        return True
    return not any(e.kind == "went_out" and e.seat == last.seat for e in events[start:hand_end])


def playout(r: Rules, players: int, seed: int, views: bool) -> tuple[Game, list[Move]]:
    """Play a game with random legal moves, checking the invariants after every move."""
    rng = random.Random(seed * 7919 + players)
    game = Game.new(r, players, seed)
    size = deck_size(r, players)
    deck = sorted(build_deck(game.decks, game._deck_without))
    assert len(deck) == size and all_cards(game) == deck
    moves: list[Move] = []
    checked = 0
    limit = len(r.hands_in_game()) * r.max_turns_per_hand
    check_state(game, size)
    while not game.is_over:
        assert len(moves) < limit, "the game must end"
        m = choose(game, rng)
        hand = game.hand_index
        game.apply(m)
        moves.append(m)
        check_state(game, size)
        if game.hand_index != hand and not game.is_over:
            assert all_cards(game) == deck  # a new deal uses exactly the whole deck again
        if game.hand_index != hand or game.is_over:
            check_events(game, checked)
            if views:
                check_views(game, checked)
            checked = len(game.events)
    assert game.outcome is not None
    assert game.outcome.hands_played == len(r.hands_in_game())
    assert all_cards(game) == deck
    return game, moves


def cells() -> Iterator[object]:
    """Every configuration at every player count; the fast lane (``-m "not slow"``) keeps each
    configuration once, at a player count that rotates with it (every count still played)."""
    for k, name in enumerate(CONFIGS):
        for players in PLAYERS:
            rest = () if players == PLAYERS[k % len(PLAYERS)] else (pytest.mark.slow,)
            yield pytest.param(name, players, marks=rest)


@pytest.mark.parametrize(("name", "players"), list(cells()))
def test_random_playouts_keep_the_invariants(name: str, players: int) -> None:
    r, games = CONFIGS[name]
    capped = 0
    for i in range(games):
        game, _ = playout(r, players, seed=1000 * players + i, views=i % VIEW_EVERY == 0)
        assert game.outcome is not None
        capped += game.outcome.capped_hands
    if r.max_turns_per_hand <= 25:
        assert capped > 0



@pytest.mark.parametrize(("name", "players"), [
    ("standard", 2), ("gamerules", 4), ("spanish", 7), ("standard+face", 10),
    ("spanish+face+idiot+deal_announce", 3), ("gamerules+short+everything+cap60", 6),
    ("standard+no_kq+dealer_dir+count_out", 3),
])
def test_same_seed_and_moves_replay_the_same_event_log(name: str, players: int) -> None:
    r, _ = CONFIGS[name]
    for seed in range(2):
        game, moves = playout(r, players, seed, views=False)
        again = replay(r, players, seed, moves)
        assert again.events == game.events
        assert again.outcome == game.outcome
        # Through the record's JSON form too (rules, moves and events as text).
        record = GameRecord.of(game, moves)
        loaded = GameRecord.from_dict(json.loads(json.dumps(record.to_dict())))
        assert loaded.events == game.events and loaded.rules == r
        assert replay(loaded.rules, loaded.players, loaded.seed, loaded.moves).events == game.events


def test_clone_plays_on_independently_and_identically() -> None:
    r, _ = CONFIGS["standard+face"]
    game = Game.new(r, 4, 5)
    rng = random.Random(1)
    for _ in range(60):
        game.apply(choose(game, rng))
    copy = game.clone()
    moves = []
    rng2 = random.Random(2)
    while not game.is_over:
        m = choose(game, rng2)
        moves.append(m)
        game.apply(m)
    assert not copy.is_over  # untouched by the original's moves
    for m in moves:
        copy.apply(m)
    assert copy.events == game.events and copy.outcome == game.outcome


def test_clone_copies_every_field() -> None:
    """``clone`` names the fields it copies (a compiled Game has no __dict__): none is missed,
    and the mutable ones are copies, not shared."""
    game = Game.new(CONFIGS["standard+face"][0], 3, 9)
    copy = game.clone()
    names = getattr(Game, "__mypyc_attrs__", None) or tuple(vars(game))
    assert "hands" in names and "_rng" in names
    for name in names:
        if name == "__dict__":
            continue
        mine, theirs = getattr(game, name), getattr(copy, name)
        assert mine == theirs or name == "_rng", name
        if isinstance(mine, (list, set)) and name != "_legal":
            assert mine is not theirs, name
    assert copy._rng.getstate() == game._rng.getstate()


def test_clone_and_original_draw_the_same_numbers_apart() -> None:
    """The two share one RNG until either draws (``Game._own_rng``): a draw by one leaves the
    other's numbers as they were, so both draw the same sequence."""
    game = Game.new(CONFIGS["standard+face"][0], 3, 9)
    copy = game.clone()
    first = [copy._own_rng().random() for _ in range(3)]
    assert [game._own_rng().random() for _ in range(3)] == first
    again = game.clone()
    assert [again._own_rng().random() for _ in range(3)] == [game._own_rng().random()
                                                             for _ in range(3)]


def test_deals_do_not_depend_on_how_earlier_hands_were_played() -> None:
    r = preset("standard").replace(max_turns_per_hand=60)

    def deals(policy_seed: int) -> list[tuple[int, int, tuple[Card, ...]]]:
        game = Game.new(r, 4, seed=77)
        rng = random.Random(policy_seed)
        while not game.is_over:
            game.apply(choose(game, rng))
        hand = 0
        out = []
        for e in game.events:
            if e.kind == "hand_start":
                hand = e.aux
            if e.kind == "deal":
                out.append((hand, e.seat, e.cards))
        return out

    first, second = deals(1), deals(2)
    assert first == second and len(first) == 60
