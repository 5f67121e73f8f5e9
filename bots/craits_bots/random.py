"""``RandomBot``: a uniformly random legal move; the baseline every other bot should beat.

Deterministic on purpose: each game has its own RNG seeded from the bot's seed
(``CRAITS_BOT_SEED``, or a fixed default), the game's id and the seat, so a game replays the same
however many other games the process plays at once and in whatever order their decisions arrive,
and two random bots at one table with the default seed still play differently.
"""

from __future__ import annotations

import os
import random
from typing import Final

from craits_sdk import Bot, GameInfo, GameResult, View, run

DEFAULT_SEED: Final = 20250101


def seed_from_env() -> int:
    """``CRAITS_BOT_SEED`` as an integer, or the default when unset."""
    raw = os.environ.get("CRAITS_BOT_SEED", "").strip()
    if not raw:
        return DEFAULT_SEED
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"CRAITS_BOT_SEED must be a whole number, got {raw!r}") from None


class RandomBot(Bot):
    """Chooses uniformly among the legal moves."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed_from_env() if seed is None else seed
        self._rngs: dict[str, random.Random] = {}

    def rng(self, game_id: str, seat: int) -> random.Random:
        """The game's own RNG, made on first use."""
        rng = self._rngs.get(game_id)
        if rng is None:
            seed = f"craits-random:{self.seed}:{game_id}:{seat}"
            rng = self._rngs[game_id] = random.Random(seed)
        return rng

    def on_game_start(self, game: GameInfo) -> None:
        """Start the game's RNG afresh."""
        self._rngs.pop(game.game_id, None)

    def on_game_end(self, result: GameResult) -> None:
        """Forget the game's RNG."""
        self._rngs.pop(result.game_id, None)

    def decide(self, view: View) -> int:
        """A uniformly random index into the legal moves."""
        return self.rng(view.game_id, view.seat).randrange(len(view.legal_moves))


if __name__ == "__main__":
    run(RandomBot)
