"""Which sampled worlds are likely: a model of how the others choose their plays, and worlds drawn
in proportion to it.

The SDK's sampler (``craits_sdk.worlds``) deals every world that the hard facts allow, each as
likely as the next. But a player who played a three while holding a playable thirty-point card
is unusual: whoever sheds costly cards (every bundled bot but ``random``, and most people) rarely
does that. So a world in which that player held such a card explains the play worse than a world
in which it did not, and should count for less. Here each world is weighed by the likelihood of
the others' plays this hand (``WorldSampler.sample_explained`` says what each seat held at each
play in that world) under a *shedder* model: a softmax, at temperature ``TEMPERATURE`` points,
over the legal (card, suit) plays of the points shed plus ``FOLLOWER`` per card left that can
follow the suit the play leaves, minus ``EIGHT_KEPT`` for an eight while the hand is long (the
playout policy's scoring, ``craits_bots.playout``), mixed with a share ``SURPRISE`` of a uniform
choice so that a player who does not play like the model divides a world's weight by a bounded
factor instead of ruling it out.

Measured with ``benchmarks/belief_bench.py`` (``docs/strategies.md``): at 100 worlds a position,
the weighted worlds predict which suits each opponent holds with a Brier score 7% (against
``greedy``) and 12% (against ``expert``) lower than unweighted ones at tables of 2; which cards,
within about 2% either way (fewer worlds count, which costs as much as the model gains). At
tables of 3 and 4 the weights are tempered (``TEMPERING``): at 4 players the suits' score is 6%
and 7% lower, the cards' 2% and 3%.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Iterator, Sequence
from typing import Final

from craits.engine import Game
from craits.engine.cards import RANK, SAME_COLOUR, SUIT
from craits.engine.scoring import CARD_POINTS
from craits_sdk import Choice, WorldSampler

from .playout import EIGHT_KEPT, FOLLOWER, followers_by_suit

TEMPERATURE: Final = 10.0
"""Points of the model's score that make a play e (2.7) times as likely (measured: 20 and 40
predicted the others' suits less well at every table measured)."""
SURPRISE: Final = 0.2
"""Share of the others' plays the model expects to be made at random among the legal ones
(measured: 0.05 predicted as well at tables of 2 and a little worse at tables of 4)."""
TEMPERING: Final = 0.5
"""The power a world's likelihood is raised to at tables of three or more (``weight_exponent``).
A likelihood is a product over every play the others made this hand, two or three seats' worth
there, so untempered a few worlds carry most of the weight: the weights of 100 worlds counted
as 58 at 2 players (their effective sample size, median position), 28 at 3 and 22 at 4;
tempered, 65 at 3 and 57 at 4. Measured with ``benchmarks/belief_bench.py``
(``docs/strategies.md``), the square root predicted both the others' cards and their suits
better than the likelihood itself at tables of 3 and 4, against ``greedy`` and ``expert``, and
worse at tables of 2; a cube root did worse than the square root at 4."""


def play_likelihood(choice: Choice, temperature: float = TEMPERATURE) -> float:
    """How likely the shedder model, at ``temperature`` points, finds ``choice`` (1 where the
    seat had no other play)."""
    if len(choice.options) == 1 and RANK[choice.card] not in (8, 9):
        return 1.0  # the only play, with no suit to name: most plays at the larger tables
    by_suit = followers_by_suit(choice.held)
    long_hand = len(choice.held) > 2
    left = choice.suit if choice.suit >= 0 else SUIT[choice.card]
    scores: list[float] = []
    made = 0.0
    for card in choice.options:
        rank, own = RANK[card], SUIT[card]
        suits = range(4) if rank == 8 else (own, SAME_COLOUR[own]) if rank == 9 else (own,)
        for suit in suits:
            followers = by_suit[suit] - (1 if suit == own and rank != 8 else 0)
            score = CARD_POINTS[rank] + FOLLOWER * followers
            if rank == 8 and long_hand:
                score -= EIGHT_KEPT
            scores.append(score / temperature)
            if card == choice.card and suit == left:
                made = score / temperature
    if len(scores) < 2:
        return 1.0
    top = max(scores)
    softmax = math.exp(made - top) / sum(math.exp(s - top) for s in scores)
    return (1 - SURPRISE) * softmax + SURPRISE / len(scores)


def world_weight(
    choices: Sequence[Choice], exponent: float = 1.0, temperature: float = TEMPERATURE,
) -> float:
    """The likelihood of all the others' plays this hand in one world (a product: the plays
    are taken as independent given the cards held), raised to ``exponent``."""
    weight = 1.0
    for choice in choices:
        weight *= play_likelihood(choice, temperature)
    return math.pow(weight, exponent)


def weight_exponent(players: int) -> float:
    """What a world's likelihood is raised to at a table of ``players`` (``TEMPERING``)."""
    return 1.0 if players <= 2 else TEMPERING


class WeightedWorlds(Iterator[Game]):
    """Worlds without end, drawn in proportion to their weight from a pool that grows by one
    sampled world every ``every`` draws: each draw is a copy (an iteration consumes its world).

    A growing pool instead of a fixed one: a search on the clock does not know how many worlds
    it will need, and its first iterations already get the best of what it has seen."""

    def __init__(
        self, sampler: WorldSampler, rng: random.Random, every: int, exponent: float = 1.0,
    ) -> None:
        if every < 1:
            raise ValueError(f"a world must be drawn from at least once, got every={every}")
        self.sampler = sampler
        self.rng = rng
        self.every = every
        self.exponent = exponent
        """What each world's likelihood is raised to (``weight_exponent``)."""
        self.pool: list[Game] = []
        self.cumulative: list[float] = []
        self.draws = 0

    def __next__(self) -> Game:
        if self.draws % self.every == 0:
            world, choices = self.sampler.sample_explained(self.rng, history=False)
            self.pool.append(world)
            total = self.cumulative[-1] if self.cumulative else 0.0
            self.cumulative.append(total + world_weight(choices, self.exponent))
        self.draws += 1
        at = bisect.bisect_right(self.cumulative, self.rng.random() * self.cumulative[-1])
        return self.pool[min(at, len(self.pool) - 1)].clone()
