"""How well sampled worlds predict the others' hands: unweighted, and weighed by the shedder model.

Usage: ``.venv/bin/python benchmarks/belief_bench.py [--players 2] [--against greedy]
[--games 12] [--worlds 100] [--temperature 10] [--exponent E] [--json]``

Plays ``--games`` short games (seat 0 ``greedy``, the others ``--against``) and, at about half of
seat 0's decisions with a choice, samples ``--worlds`` worlds from its view. For every other
seat it predicts, from the worlds, the chance that the seat holds each card it cannot see, and
the chance that it holds a card of each suit (eights aside: they follow nothing), once with
every world counted alike and once with each world weighed as ``ismcts`` weighs it
(``craits_bots.belief.world_weight``, tempered at tables of 3 and more: ``weight_exponent``).
It reports the Brier score of each prediction against the seat's true hand (the mean squared
error of the probabilities; lower is better, 0 is perfect). The figures are deterministic for
fixed arguments: no clock is read.

``--temperature`` and ``--exponent`` replace the model's temperature and the power its
likelihoods are raised to, and many ``--worlds`` take away the noise of a small sample: together
they show how much the others' plays can tell a seat at best, whatever a search can afford.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass

from craits.engine import Card, Game, observe, preset
from craits.engine.cards import RANK, SUIT
from craits_bots.belief import TEMPERATURE, weight_exponent, world_weight
from craits_bots.registry import BUNDLED, load
from craits_sdk import GameInfo, View


@dataclass(frozen=True, slots=True)
class Position:
    """A view of seat 0 and every seat's true hand at that moment."""

    view: View
    hands: tuple[tuple[Card, ...], ...]


def positions(players: int, against: str, games: int, seed: int) -> list[Position]:
    """Seat 0's views at about half its decisions with a choice, over ``games`` games."""
    rules = preset("standard").replace(short_game=True)
    rng = random.Random(seed)
    found: list[Position] = []
    for number in range(games):
        game = Game.new(rules, players, rng.randrange(10**9))
        bots = [load("greedy" if seat == 0 else against)() for seat in range(players)]
        infos = [GameInfo(f"belief-{number}", s, (), rules) for s in range(players)]
        decision = 0
        while not game.is_over:
            seat = game.to_act
            decision += 1
            view = View.from_observation(observe(game, seat, since=infos[seat].next_index), rules,
                                         game=infos[seat], decision_id=decision)
            if seat == 0 and len(view.legal_moves) > 1 and rng.random() < 0.5:
                found.append(Position(view, tuple(tuple(h) for h in game.hands)))
            game.apply(bots[seat].move_for(view))
    return found


@dataclass(frozen=True, slots=True)
class Model:
    """How worlds are weighed: not at all, or by the shedder model at ``temperature`` with its
    likelihoods raised to ``exponent``."""

    weighed: bool
    temperature: float = TEMPERATURE
    exponent: float = 1.0


def brier(found: Sequence[Position], worlds: int, model: Model, seed: int) -> tuple[float, float]:
    """The Brier scores of the card and suit predictions over ``found``."""
    rng = random.Random(seed)
    card_error = suit_error = 0.0
    cards = suits = 0
    for position in found:
        sampler = position.view.world_sampler()
        dealt = [sampler.sample_explained(rng, history=False) for _ in range(worlds)]
        weights = [world_weight(choices, model.exponent, model.temperature) if model.weighed
                   else 1.0 for _, choices in dealt]
        total = sum(weights)
        for seat, truth in enumerate(position.hands):
            if seat == position.view.seat:
                continue
            card_chance = dict.fromkeys(sampler.unseen, 0.0)
            suit_chance = [0.0] * 4
            for (world, _), weight in zip(dealt, weights, strict=True):
                for card in set(world.hands[seat]):
                    card_chance[card] += weight / total
                for suit in {SUIT[c] for c in world.hands[seat] if RANK[c] != 8}:
                    suit_chance[suit] += weight / total
            for card, chance in card_chance.items():
                card_error += (chance - (card in truth)) ** 2
                cards += 1
            held = {SUIT[c] for c in truth if RANK[c] != 8}
            for suit, chance in enumerate(suit_chance):
                suit_error += (chance - (suit in held)) ** 2
                suits += 1
    return card_error / cards, suit_error / suits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--against", default="greedy", help="the bundled bot in the other seats")
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--worlds", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--temperature", type=float, default=TEMPERATURE,
                        help=f"the shedder model's temperature in points (default {TEMPERATURE})")
    parser.add_argument("--exponent", type=float, default=None,
                        help="the power the likelihoods are raised to (default: the bot's, "
                             "by table size)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not 2 <= args.players <= 10:
        parser.error("--players must be 2 to 10")
    if args.against not in BUNDLED:
        parser.error(f"no bundled bot {args.against!r}; known: {', '.join(BUNDLED)}")
    if args.games < 1 or args.worlds < 1:
        parser.error("--games and --worlds must be at least 1")
    if args.temperature <= 0 or (args.exponent is not None and args.exponent <= 0):
        parser.error("--temperature and --exponent must be positive")
    found = positions(args.players, args.against, args.games, args.seed)
    rows = {}
    exponent = weight_exponent(args.players) if args.exponent is None else args.exponent
    weighed = Model(True, args.temperature, exponent)
    for name, model in (("unweighted", Model(False)), ("weighted", weighed)):
        card, suit = brier(found, args.worlds, model, args.seed)
        rows[name] = {"card_brier": card, "suit_brier": suit}
    report = {"players": args.players, "against": args.against, "positions": len(found),
              "worlds": args.worlds, "temperature": args.temperature, "exponent": exponent,
              **rows}
    if args.json:
        print(json.dumps(report))
        return
    print(f"{len(found)} positions of seat 0 (greedy) against {args.against} at tables of "
          f"{args.players}, {args.worlds} worlds each, weighed at {args.temperature:g} points "
          f"to the power {exponent:g}; Brier score (lower is better):")
    for name, row in rows.items():
        print(f"  {name:>10}: cards {row['card_brier']:.4f}, suits {row['suit_brier']:.4f}")
    gain = 1 - rows["weighted"]["suit_brier"] / rows["unweighted"]["suit_brier"]
    print(f"  the weights cut the suits' Brier score by {100 * gain:.1f}%")


if __name__ == "__main__":
    main()
