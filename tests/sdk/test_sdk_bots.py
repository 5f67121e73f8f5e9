"""The bundled bots on the engine: legal moves only, determinism, and greedy beating random."""

from __future__ import annotations

import statistics

import pytest

from craits.engine import Game, Rules, observe, preset
from craits_bots.greedy import GreedyBot
from craits_bots.lowcard import LowCardBot
from craits_bots.random import RandomBot
from craits_bots.registry import BUNDLED, launch_command, load
from craits_sdk import Bot, GameInfo, View, play_game

RULE_SETS = {
    "standard": preset("standard"),
    "gamerules": preset("gamerules"),
    "spanish": preset("spanish"),
    "face_cards": preset("standard").replace(face_cards=True, short_game=True),
    "draw_when_able": preset("spanish").replace(
        draw_when_able=True, announce_on_one_card_deal=True, short_game=True
    ),
}


def _check_game(rules: Rules, players: int, seed: int) -> int:
    """Drive one game with random and greedy seats; every move must be listed. Returns decisions."""
    game = Game.new(rules, players, seed)
    bots: list[Bot] = [RandomBot(seed) if s % 2 else GreedyBot() for s in range(players)]
    infos = [GameInfo(f"g{seed}", s, (), rules) for s in range(players)]
    decisions = 0
    while not game.is_over:
        seat = game.to_act
        obs = observe(game, seat, since=infos[seat].next_index)
        view = View.from_observation(obs, rules, game=infos[seat])
        for bot in (bots[seat], GreedyBot(), RandomBot(decisions), LowCardBot()):
            assert bot.move_for(view) in obs.legal_moves, (bot, obs.legal_moves)
        game.apply(bots[seat].move_for(view))
        decisions += 1
    return decisions


@pytest.mark.parametrize("name", sorted(RULE_SETS))
@pytest.mark.slow
def test_bots_only_ever_choose_listed_moves(name: str) -> None:
    decisions = sum(
        _check_game(RULE_SETS[name], players, seed)
        for players, seed in [(2, 1), (3, 2), (4, 3), (6, 4), (10, 5)]
    )
    assert decisions > 500


def test_view_history_is_the_whole_game_so_far() -> None:
    rules = preset("standard")
    game = Game.new(rules, 3, 9)
    infos = [GameInfo("g", s, (), rules) for s in range(3)]
    for _ in range(200):
        seat = game.to_act
        obs = observe(game, seat, infos[seat].next_index)
        view = View.from_observation(obs, rules, game=infos[seat])
        assert view.events == observe(game, seat).events
        game.apply(GreedyBot().move_for(view))


def test_random_bot_is_deterministic_per_seed_and_game() -> None:
    def totals(seed: int, game_id: str) -> tuple[int, ...]:
        bots = [RandomBot(seed) for _ in range(3)]
        return play_game(bots, preset("standard"), seed=1, game_id=game_id).totals

    assert totals(5, "a") == totals(5, "a")
    assert totals(5, "a") != totals(5, "b") or totals(5, "a") != totals(6, "a")


def test_random_bot_seed_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CRAITS_BOT_SEED", "77")
    assert RandomBot().seed == 77
    monkeypatch.setenv("CRAITS_BOT_SEED", "x")
    with pytest.raises(ValueError, match="CRAITS_BOT_SEED"):
        RandomBot()


@pytest.mark.slow
def test_greedy_beats_random_on_average() -> None:
    """One greedy seat against three random ones, the greedy seat rotating; 40 games."""
    greedy_totals: list[int] = []
    random_totals: list[int] = []
    greedy_places: list[int] = []
    random_places: list[int] = []
    for i in range(40):
        greedy_seat = i % 4
        bots: list[Bot] = [
            GreedyBot() if s == greedy_seat else RandomBot(seed=100 * i + s) for s in range(4)
        ]
        outcome = play_game(bots, preset("standard"), seed=1000 + i, game_id=f"g{i}")
        for seat in range(4):
            is_greedy = seat == greedy_seat
            (greedy_totals if is_greedy else random_totals).append(outcome.totals[seat])
            (greedy_places if is_greedy else random_places).append(outcome.places[seat])
    assert statistics.mean(greedy_totals) < statistics.mean(random_totals) - 150
    assert statistics.mean(greedy_places) < statistics.mean(random_places) - 0.8
    assert sum(p == 1 for p in greedy_places) >= 18  # 26 with these seeds; ~68% over 400 games


def test_registry_names_launchable_bot_classes() -> None:
    assert BUNDLED == {
        "random": "craits_bots.random:RandomBot",
        "greedy": "craits_bots.greedy:GreedyBot",
        "lowcard": "craits_bots.lowcard:LowCardBot",
        "expert": "craits_bots.expert:ExpertBot",
        "ismcts": "craits_bots.ismcts:IsmctsBot",
    }
    command = launch_command("greedy")
    assert command[1:] == ["-m", "craits_sdk", "run", "craits_bots.greedy:GreedyBot"]
    assert load("greedy") is GreedyBot and load("random") is RandomBot
    assert load("lowcard") is LowCardBot
    with pytest.raises(KeyError, match="known: random, greedy, lowcard, expert, ismcts"):
        load("nobody")
