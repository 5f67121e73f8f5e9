"""The expert and ismcts bots: legal moves under every rule set, determinism, the thinking
budget, and ``craits check`` on each as a real process."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from craits.engine import Card, Game, Rules, observe, preset
from craits.engine.cards import RANK, SUIT
from craits.engine.scoring import CARD_POINTS
from craits.tournament.plan.config import load_config
from craits.tournament.run.inprocess import load_bot
from craits_bots.belief import (
    SURPRISE,
    TEMPERING,
    WeightedWorlds,
    play_likelihood,
    weight_exponent,
    world_weight,
)
from craits_bots.budget import OFFLINE_MS, Budget
from craits_bots.expert import ExpertBot
from craits_bots.ismcts import IsmctsBot, worlds
from craits_bots.playout import SCALE, play_on, policy_move, rewards
from craits_bots.registry import BUNDLED
from craits_sdk import Bot, Choice, GameInfo, View, play_game
from tests.check.helpers import check_json
from tests.sdk.positions import shed_low

RULE_SETS = {
    "standard": preset("standard").replace(short_game=True),
    "gamerules": preset("gamerules").replace(short_game=True),
    "spanish+face_cards": preset("spanish").replace(face_cards=True, short_game=True),
    "draw_when_able": preset("standard").replace(
        draw_when_able=True, announce_on_one_card_deal=True, short_game=True,
    ),
}


def play_checked(rules: Rules, bots: list[Bot], seed: int) -> None:
    """One game in which every move the bots choose must be listed."""
    game = Game.new(rules, len(bots), seed)
    infos = [GameInfo(f"g{seed}", s, (), rules) for s in range(len(bots))]
    while not game.is_over:
        seat = game.to_act
        view = View.from_observation(observe(game, seat, infos[seat].next_index), rules,
                                     game=infos[seat])
        move = bots[seat].move_for(view)
        assert move in view.legal_moves
        game.apply(move)


@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_expert_and_ismcts_only_choose_listed_moves(name: str) -> None:
    rules = RULE_SETS[name]
    play_checked(rules, [ExpertBot(), IsmctsBot(1, iterations=6), ExpertBot()], seed=len(name))
    if name == "standard":
        play_checked(rules, [ExpertBot() for _ in range(6)], seed=7)  # two decks


def test_ismcts_with_a_fixed_iteration_count_is_deterministic() -> None:
    rules = preset("standard").replace(short_game=True)

    def totals() -> tuple[int, ...]:
        return play_game([IsmctsBot(5, iterations=6), ExpertBot()], rules, seed=3).totals

    assert totals() == totals()


def test_ismcts_runs_the_iterations_it_is_given() -> None:
    game = Game.new(preset("standard"), 3, 1)
    rng = random.Random(1)
    while len(game.legal_moves()) < 2:
        game.apply(rng.choice(game.legal_moves()))
    bot = IsmctsBot(iterations=40)
    view = View.from_observation(observe(game, game.to_act), game.rules)
    assert bot.move_for(view) in view.legal_moves
    assert bot.last_iterations == 40


def test_the_budget_is_a_share_of_the_move_time_and_of_the_bank_per_decision_left() -> None:
    assert Budget.of(1000, 0, 10).ms == 500
    assert Budget.of(1000, 20_000, 20).ms == 500 + 500
    assert Budget.of(1000, 20_000, 20, cap_ms=100).ms == 100
    assert Budget.of(0, 0, 5).ms == OFFLINE_MS  # offline: no clock


@pytest.mark.parametrize("name", ["expert", "ismcts"])
@pytest.mark.slow
def test_craits_check_passes_with_the_bot_as_its_own_process(
    name: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CRAITS_ISMCTS_MS", "20")  # the short game stays short
    result = check_json(capsys, name)
    report = result.report()
    assert result.status == 0, report
    assert report["failed"] == 0


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_strategy_study_files_load_with_every_bot_bundled_or_launchable(players: int) -> None:
    path = Path(__file__).resolve().parents[2] / "docs" / "strategies" / f"table{players}.toml"
    config = load_config(path, BUNDLED)
    assert config.table_size == players
    assert {"random", "lowcard", "greedy", "expert"} <= set(config.bot_names)


def _mid_hand(players: int, seed: int) -> Game:
    game = Game.new(preset("standard").replace(short_game=True), players, seed)
    rng = random.Random(seed)
    for _ in range(6):
        game.apply(rng.choice(game.legal_moves()))
    return game


def test_a_playout_stops_at_its_depth_or_at_the_end_of_the_hand() -> None:
    game = _mid_hand(3, 4)
    turns = game.turns_in_hand
    ended = play_on(game, random.Random(1), depth=3)
    assert not ended and game.turns_in_hand == turns + 3
    assert play_on(game, random.Random(1), depth=10_000)
    assert game.hand_index == 1


def test_rewards_are_zero_sum_and_exact_once_the_hand_ended() -> None:
    game = _mid_hand(4, 2)
    before = list(game.totals)
    estimated = rewards(before, game, ended=False)
    assert sum(estimated) == pytest.approx(0)
    play_on(game, random.Random(3), depth=10_000)
    exact = rewards(before, game, ended=True)
    taken = [after - start for start, after in zip(before, game.totals, strict=True)]
    best = min(range(4), key=taken.__getitem__)
    assert sum(exact) == pytest.approx(0)
    assert max(range(4), key=exact.__getitem__) == best


def test_the_quick_policy_never_draws_while_it_can_play() -> None:
    for seed in range(30):
        game = _mid_hand(3, seed)
        legal = game.legal_moves()
        move = policy_move(game, legal)
        assert move in legal
        if any(m.card >= 0 for m in legal):
            assert move.card >= 0 or move.suit >= 0


def test_the_study_entrants_load_and_take_their_iterations_from_the_table_size() -> None:
    study = Path(__file__).resolve().parents[2] / "docs" / "strategies"
    bots = [load_bot(f"entrants:{name}", study) for name in ("Ismcts100ms", "Ismcts25ms")]
    assert [b.client_name() for b in bots] == ["ismcts-100ms", "ismcts-25ms"]
    game = _mid_hand(3, 1)
    while len(game.legal_moves()) < 2:
        game.apply(game.legal_moves()[0])
    view = View.from_observation(observe(game, game.to_act), game.rules)
    counts = []
    for bot in bots:
        assert isinstance(bot, IsmctsBot)
        assert bot.move_for(view) in view.legal_moves
        counts.append(bot.last_iterations)
    assert counts == [680, 170]


def test_each_sampled_world_is_played_reuse_times_as_independent_copies() -> None:
    game = _mid_hand(3, 5)
    view = View.from_observation(observe(game, game.to_act), game.rules)
    supply = worlds(view.world_sampler(), random.Random(2), reuse=3)
    first = [next(supply) for _ in range(3)]
    later = next(supply)
    assert all(w.hands == first[0].hands and w.stock == first[0].stock for w in first)
    assert len({id(w) for w in first}) == 3
    assert later.hands != first[0].hands  # a fresh deal after three
    first[0].apply(first[0].legal_moves()[0])
    assert first[1].hands == first[2].hands != first[0].hands  # a copy plays on alone


def test_ismcts_refuses_to_reuse_a_world_fewer_than_once() -> None:
    with pytest.raises(ValueError, match="reuse"):
        IsmctsBot(1, reuse=0)


def test_the_shedder_model_finds_the_costly_play_likelier_and_nothing_impossible() -> None:
    ace, nine, king = (Card.parse(t) for t in ("AD", "9D", "KD"))
    held = (ace, nine, king, Card.parse("5S"))
    cheap, costly = (play_likelihood(Choice(1, card, -1, held, (ace, nine, king)))
                     for card in (ace, nine))
    assert costly > 3 * cheap
    assert cheap >= SURPRISE / 5  # AD, 9D kept, 9D switched to hearts, KD: never ruled out
    assert play_likelihood(Choice(1, ace, -1, held, (ace,))) == 1.0


def test_weighted_worlds_favour_those_that_explain_the_others_plays() -> None:
    """Seat 1 answered AD though it may have held costlier diamonds: the worlds drawn by weight
    give it fewer of them than the sampler's worlds do, and every one still agrees with the
    view."""
    game = shed_low()
    sampler = View.from_observation(observe(game, 0), game.rules).world_sampler()

    def costly(world: Game) -> int:
        return sum(1 for c in world.hands[1] if SUIT[c] == 1 and CARD_POINTS[RANK[c]] >= 10)
    plain = [costly(sampler.sample(random.Random(i), history=False)) for i in range(400)]
    supply = WeightedWorlds(sampler, random.Random(5), every=1)
    drawn = [next(supply) for _ in range(400)]
    assert sum(map(costly, drawn)) < 0.7 * sum(plain)  # 0.60 with these seeds
    assert all(observe(w, 0).hand == observe(game, 0).hand for w in drawn)
    with pytest.raises(ValueError, match="at least once"):
        WeightedWorlds(sampler, random.Random(5), every=0)


def test_weights_are_tempered_at_tables_of_three_or_more() -> None:
    """At 2 players a world weighs its likelihood; at 3 and more its likelihood to the power
    ``TEMPERING``, so that the weights of many worlds are spread more evenly."""
    assert weight_exponent(2) == 1.0
    assert weight_exponent(3) == weight_exponent(4) == TEMPERING < 1.0
    game = _mid_hand(4, 2)
    for _ in range(24):
        game.apply(game.legal_moves()[0])
    sampler = View.from_observation(observe(game, game.to_act), game.rules).world_sampler()
    explained = [sampler.sample_explained(random.Random(i), history=False)[1] for i in range(40)]
    weights = [world_weight(choices) for choices in explained]
    tempered = [world_weight(choices, 0.5) for choices in explained]
    assert tempered == pytest.approx([w**0.5 for w in weights])
    assert len(set(weights)) > 1  # the position's worlds explain the others' plays differently

    def effective(ws: list[float]) -> float:
        return sum(ws) ** 2 / sum(w * w for w in ws)
    assert effective(tempered) > effective(weights)
    supply = WeightedWorlds(sampler, random.Random(3), every=1, exponent=0.5)
    next(supply)
    assert supply.cumulative[0] < 1.0  # a weight of 1 would be its own square root
    assert supply.cumulative[0] == pytest.approx(world_weight(
        sampler.sample_explained(random.Random(3), history=False)[1], 0.5))


def test_a_reward_is_the_margin_early_and_the_chance_of_finishing_ahead_late() -> None:
    """Early in a game a lead is worth its points; in the last hand, doubling a big lead adds
    little, while the seat behind still wants every point it can get back."""
    game = _mid_hand(2, 4)
    game.hands = [[], []]  # the hand ended in these totals: nothing left to estimate

    def reward(first: int, second: int, hand_index: int) -> float:
        game.totals, game.hand_index = [first, second], hand_index
        mine, theirs = rewards([0, 0], game, ended=True)
        assert mine == pytest.approx(-theirs)
        return mine
    assert reward(0, 30, 1) == pytest.approx(30 / SCALE, rel=0.02)  # the first hand ended
    last = len(game.rules.hands_in_game())  # the last hand ended
    assert reward(0, 300, last) < 1.05 * reward(0, 150, last)
    assert reward(0, 30, last) > 0.9 * 30 / SCALE
