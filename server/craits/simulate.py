"""Random-legal playouts: the simplest policy, for simulations, smoke tests and benchmarks.

This lives outside ``craits.engine`` on purpose: the engine is pure rules and knows no policy.
Everything here is deterministic from its seeds. Game ``i`` of a run with base seed ``S`` uses
engine seed ``S + i`` and its own ``random.Random`` for the policy, so any single game of a run
can be rebuilt alone, and its recorded moves replay to the same outcome.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .engine import Game, GameRecord, Move, Outcome, Rules


def policy_rng(game_seed: int) -> random.Random:
    """The policy's RNG for one game, seeded apart from the engine's own per-hand RNGs."""
    return random.Random(f"craits:random-policy:{game_seed}")


@dataclass(slots=True)
class Playout:
    """One finished random game: the game itself, its moves (if kept) and its decision count."""

    game: Game
    decisions: int
    moves: list[Move] = field(default_factory=list)

    @property
    def outcome(self) -> Outcome:
        """The finished game's outcome (a playout always runs to the end)."""
        assert self.game.outcome is not None, "a playout always runs to the end"
        return self.game.outcome

    def record_dict(self) -> dict[str, Any]:
        """The game record (rules, players, seed, moves, events) plus its outcome, JSON-ready."""
        data = GameRecord.of(self.game, self.moves).to_dict()
        data["outcome"] = outcome_dict(self.outcome)
        return data


def outcome_dict(outcome: Outcome) -> dict[str, Any]:
    """The parts of an outcome a reader of a record wants, JSON-ready."""
    return {
        "totals": list(outcome.totals),
        "places": list(outcome.places),
        "hands_played": outcome.hands_played,
        "capped_hands": outcome.capped_hands,
        "pressure_points": list(outcome.pressure_points),
    }


def random_playout(rules: Rules, players: int, seed: int, keep_moves: bool = False) -> Playout:
    """Play one whole game choosing uniformly among the legal moves at every decision.

    Moves are kept only on request because the list is pure overhead when nobody records.
    """
    game = Game.new(rules, players, seed)
    choice = policy_rng(seed).choice
    legal_moves, apply = game.legal_moves, game.apply
    moves: list[Move] = []
    decisions = 0
    while not game.is_over:
        move = choice(legal_moves())
        apply(move)
        decisions += 1
        if keep_moves:
            moves.append(move)
    return Playout(game, decisions, moves)


@dataclass(slots=True)
class Summary:
    """Totals over a run of playouts; ``seconds`` counts time spent playing only."""

    players: int
    games: int = 0
    decisions: int = 0
    seconds: float = 0.0
    capped_hands: int = 0
    score_sums: list[int] = field(default_factory=list)

    def add(self, playout: Playout, seconds: float) -> None:
        """Count one finished playout that took ``seconds`` to play."""
        outcome = playout.outcome
        if not self.score_sums:
            self.score_sums = [0] * self.players
        self.games += 1
        self.decisions += playout.decisions
        self.seconds += seconds
        self.capped_hands += outcome.capped_hands
        for seat, total in enumerate(outcome.totals):
            self.score_sums[seat] += total

    @property
    def decisions_per_second(self) -> float:
        """Decisions per second of playing time (0 when nothing was timed)."""
        return self.decisions / self.seconds if self.seconds > 0 else 0.0

    @property
    def games_per_second(self) -> float:
        """Games per second of playing time (0 when nothing was timed)."""
        return self.games / self.seconds if self.seconds > 0 else 0.0

    @property
    def mean_scores(self) -> list[float]:
        """Mean final total of each seat over the games (lower is better)."""
        return [s / self.games for s in self.score_sums] if self.games else []


OnGame = Callable[[int, Playout], None]
"""Called after each game with its index and playout (to record it or show progress)."""


def run_random_games(
    rules: Rules, players: int, games: int, seed: int,
    on_game: OnGame | None = None, keep_moves: bool = False,
) -> Summary:
    """Play ``games`` random games with seeds ``seed``, ``seed + 1``, ...; time only the play."""
    summary = Summary(players)
    clock = time.perf_counter
    for index in range(games):
        start = clock()
        playout = random_playout(rules, players, seed + index, keep_moves)
        summary.add(playout, clock() - start)
        if on_game is not None:
            on_game(index, playout)
    return summary
