"""A stand-in for the tournament runner: plays stored jobs in process with deterministic bots.

It uses the store exactly as the real runner will (claim, play, record) so the store's crash
guarantees can be tested with a real ``kill -9``. Run as a script it can kill itself: after
``--die-after N`` recorded games it claims one more job and sends itself SIGKILL in the middle of
recording it (inside the transaction, as the outcome is written).
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import time
from collections.abc import Iterator, Mapping
from typing import Any

from craits.engine import Game, Rules
from craits.engine.record import choice_of
from craits.tournament.plan.schedule import Job
from craits.tournament.store.database import Store
from craits.tournament.store.game_records import FinishedGame, PlayLog


def play(job: Job) -> FinishedGame:
    """Play a job with seeded random bots: each bot's choices depend only on (bot, seed, seat)."""
    game = Game.new(Rules.from_json(job.rules_json), len(job.seats), job.seed)
    rngs = [random.Random(f"{bot}:{job.seed}:{seat}") for seat, bot in enumerate(job.seats)]
    choices = []
    started = time.time()
    while not game.is_over:
        legal = game.legal_moves()
        move = rngs[game.to_act].choice(legal)
        choices.append(choice_of(legal, move))
        game.apply(move)
    assert game.outcome is not None
    n_moves = len(choices)
    n = len(job.seats)
    return FinishedGame(
        tournament_id=job.tournament_id, game_index=job.game_index,
        totals=game.outcome.totals, places=game.outcome.places, strikes=(0,) * n,
        forfeited=(False,) * n, started=started, finished=time.time(),
        play=PlayLog(tuple(choices), (0.1,) * n_moves, tuple(range(1, n_moves + 1))),
        outcome={"hands_played": game.outcome.hands_played},
    )


def run(store: Store, tournament_id: str, die_after: int | None = None) -> int:
    """Play every pending job; returns how many games were recorded."""
    recorded = 0
    while (job := store.claim_next(tournament_id)) is not None:
        finished = play(job)
        if die_after is not None and recorded == die_after:
            finished = FinishedGame(**{**_fields(finished), "outcome": _KillOnRead()})
        recorded += store.record_game(finished)
    return recorded


class _KillOnRead(Mapping[str, Any]):
    """Data whose serialisation kills the process: a crash in the middle of a transaction."""

    def __getitem__(self, key: str) -> Any:
        raise KeyError(key)

    def __len__(self) -> int:
        return 0

    def __iter__(self) -> Iterator[str]:
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("unreachable")


def _fields(game: FinishedGame) -> dict[str, Any]:
    return {name: getattr(game, name) for name in FinishedGame.__slots__}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("db")
    parser.add_argument("tournament")
    parser.add_argument("--die-after", type=int)
    args = parser.parse_args()
    with Store.open(args.db) as main_store:
        run(main_store, args.tournament, args.die_after)
