"""Helpers for bots in other languages: bot SPECs as the launcher runs them, and one-game matches.

A SPEC is a shell line (the launcher runs it with /bin/sh -c and puts this interpreter's
directory, hence ``craits``, first on PATH); paths are absolute so the tests run from anywhere.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from craits.engine import Game, Rules, preset
from craits.hosting.match import run_match
from craits.referee import bridge
from craits.referee.game import GameSpec, PlayedGame
from craits.referee.policy import FailurePolicy, TimeControl

ROOT = Path(__file__).resolve().parents[2]
JS_BOT = ROOT / "bots" / "js" / "bot.js"
PIPE_BOTS = ROOT / "bots" / "pipe"
SHORT = preset("standard").replace(short_game=True)


def pipe(*command: str | Path, options: str = "") -> str:
    """The SPEC running ``command`` behind ``craits pipe``."""
    words = " ".join(shlex.quote(str(c)) for c in command)
    return f"craits pipe {options} -- {words}".replace("  ", " ")


def spec(game_id: str, rules: Rules = SHORT, seed: int = 7, move_ms: int = 3000) -> GameSpec:
    """A game with room for slow process start-up and the referee's default failure policy."""
    return GameSpec(
        game_id, rules, seed, TimeControl(move_ms, 5000),
        FailurePolicy(max_retries=2, max_strikes=3, grace_ms=3000),
    )


def match(specs: list[str], game: GameSpec, logs: Path) -> PlayedGame:
    """One game between bot processes over real gRPC."""

    async def main() -> PlayedGame:
        return await run_match(specs, game, logs)

    return bridge.run(main)


def first_legal_totals(rules: Rules, players: int, seed: int) -> tuple[int, ...]:
    """The same game played in process, every seat choosing its first legal move."""
    game = Game.new(rules, players, seed)
    while not game.is_over:
        game.apply(game.legal_moves()[0])
    assert game.outcome is not None
    return game.outcome.totals


def faults_of(result: PlayedGame, seat: int) -> list[str]:
    """The kinds of fault a seat received, in order."""
    return [f.kind for f in result.faults if f.seat == seat]
