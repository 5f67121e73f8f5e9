"""A small stored tournament to replay and report on, played in process in a second or two.

Games are played by seeded random policies and recorded as the real runner records them
(``PlayLog.of``: every move with its decision number and time, and the referee's strikes), so
replays and reports read exactly what a real tournament leaves. One game
carries a referee strike and a defaulted move; the tournament's name is hostile HTML, to check
that every page escapes it.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path

from craits.engine import Game, Rules
from craits.engine.record import choice_of
from craits.referee.game import MoveRecord
from craits.referee.policy import Fault
from craits.tournament.plan.schedule import Job
from craits.tournament.store.game_records import FinishedGame, PlayLog

HOSTILE_NAME = '<script>alert("pwn")</script> & <b>friends</b>'
BOTS = ("alpha", "beta.2", "gamma-3")
STRUCK_GAME, STRUCK_DECISION = 1, 7
"""The game and decision at which the referee strikes the seat to act and moves for it."""


@dataclass(frozen=True)
class Run:
    """What one in-process ``craits`` run printed."""

    status: int
    out: str
    err: str


@dataclass(frozen=True)
class Tournament:
    """The stored tournament the tests read."""

    db: Path
    id: str
    games: int


def play(job: Job, struck_game: int = STRUCK_GAME,
         fault: tuple[str, str] = ("timeout", "no valid move within 1.000s")) -> FinishedGame:
    """Play one job with seeded random bots, logged as ``tournament.runner`` logs it; in game
    ``struck_game`` the referee strikes a seat for ``fault`` (kind, detail)."""
    game = Game.new(Rules.from_json(job.rules_json), len(job.seats), job.seed)
    rng = random.Random(job.seed + job.rotation)
    strikes = [0] * len(job.seats)
    moves: list[MoveRecord] = []
    faults: list[Fault] = []
    while not game.is_over:
        decision, seat = len(moves) + 1, game.to_act
        struck = job.game_index == struck_game and decision == STRUCK_DECISION
        move = game.legal_moves()[0] if struck else rng.choice(game.legal_moves())
        if struck:
            strikes[seat] += 1
            faults.append(Fault(seat, *fault, decision, strike=True, forfeit=False))
        moves.append(MoveRecord(decision, seat, move, 1.5, struck,
                                choice_of(game.legal_moves(), move)))
        game.apply(move)
    assert game.outcome is not None
    n = len(job.seats)
    return FinishedGame(
        tournament_id=job.tournament_id, game_index=job.game_index, totals=game.outcome.totals,
        places=game.outcome.places, strikes=tuple(strikes), forfeited=(False,) * n,
        started=time.time(), finished=time.time(), play=PlayLog.of(moves, faults),
        outcome={"hands_played": game.outcome.hands_played,
                 "hand_scores": game.outcome.hand_scores},
    )
