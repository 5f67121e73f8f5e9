"""A live game as the ladder plays one: the real referee (``play_game``) between in-process
seats that take their time, observed through its ``watch`` by the contest's ``LiveGames``,
then recorded with its seed and rules and ended, as ``Ladder.play`` does (the sandboxed bots
are what this leaves out: they add nothing a spectator could see)."""

from __future__ import annotations

import random
import threading
import time

import trio

from craits.contest.api import Contest
from craits.contest.ladderstore import claim_table, finish_table, game_at, record_game
from craits.engine import Game, Move, Rules
from craits.referee.game import GameSpec, play_game
from craits.referee.seats import Decision, InProcessSeat
from craits.tournament.store.game_records import FinishedGame, PlayLog

from ..server import Served

RULES = Rules(short_game=True)
"""A short game: a few hundred moves, seconds to watch."""


class SlowSeat(InProcessSeat):
    """A random player that thinks for ``delay`` seconds a move: time for readers to watch."""

    def __init__(self, name: str, seed: int, delay: float) -> None:
        rng = random.Random(seed)
        super().__init__(name, lambda obs, rules: rng.choice(obs.legal_moves))
        self.delay = delay

    async def decide(self, decision: Decision) -> Move:
        await trio.sleep(self.delay)
        return await super().decide(decision)


async def play_live(contest: Contest, versions: list[int], names: list[str], seed: int,
                    delay: float) -> tuple[str, int]:
    """Play, watch and record one game; returns its live key and recorded id."""
    store = contest.store
    table = claim_table(store, versions, "test", time.time())
    key = f"{table.id}-0"
    watch = contest.live.start(key, names)
    spec = GameSpec(f"g{table.id}", RULES, seed)
    seats = [SlowSeat(n, seed + i, delay) for i, n in enumerate(names)]
    started = time.time()
    result = await play_game(spec, seats, watch=watch)
    finished = FinishedGame("contest", 0, result.totals, result.places, result.strikes,
                            result.forfeited, started, time.time(),
                            PlayLog.of(result.moves, result.faults),
                            {"hands_played": result.outcome.hands_played})
    record_game(store, table.id, 0, versions, finished, spec.game_id, time.time(),
                (seed, RULES.to_json()))
    finish_table(store, table.id, time.time())
    game = game_at(store, table.id, 0)
    assert game is not None
    contest.live.end(key, game)
    return key, game


def start_live(served: Served, versions: list[int], names: list[str], seed: int,
               delay: float) -> tuple[threading.Thread, dict[str, tuple[str, int]]]:
    """``play_live`` in the server's own trio loop, from a thread; the result lands in the
    dict under ``"done"`` once the game is recorded."""
    out: dict[str, tuple[str, int]] = {}

    def run() -> None:
        out["done"] = trio.from_thread.run(play_live, served.contest, versions, names, seed,
                                           delay, trio_token=served.token)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def dealt(seed: int, players: int) -> Game:
    """The game as dealt (every hand), to compare pages against."""
    return Game.new(RULES, players, seed)


__all__ = ["SlowSeat", "dealt", "play_live", "start_live"]
