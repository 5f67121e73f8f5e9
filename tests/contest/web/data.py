"""Contest data put in through the store's public functions, as the service's own tasks put it:
versions recorded and rated, games played by the engine and recorded by the ladder's store
functions, the board refitted and published."""

from __future__ import annotations

import hashlib
import random
import time

from craits.contest.board import board_rows
from craits.contest.ladderstore import (
    claim_table,
    finish_table,
    publish_board,
    record_game,
    scored_games,
)
from craits.contest.store import ContestStore, NewVersion, Version
from craits.contest.versions import VersionState
from craits.engine import Game, Rules
from craits.engine.record import choice_of
from craits.tournament.store.game_records import FinishedGame, PlayLog


def new_version(store: ContestStore, contestant_id: int, tag: str) -> Version:
    """A new version of ``contestant_id``, waiting for validation."""
    digest = hashlib.sha256(tag.encode()).hexdigest()
    version, _ = store.record_upload(contestant_id, NewVersion(digest, "bot.py", "python bot.py",
                                                               "python", 1, 10), time.time())
    return version


def rated_version(store: ContestStore, contestant_id: int, tag: str, log: str = "") -> Version:
    """A new version of ``contestant_id``, validated and rated."""
    version = new_version(store, contestant_id, tag)
    return store.set_state(version.id, VersionState.RATED, time.time(), log=log or None)


def play_game(store: ContestStore, versions: list[int], seed: int) -> int:
    """One game between ``versions`` (seeded random moves), recorded with its seed and rules,
    and the board republished, as the ladder does after a game; returns the game's id."""
    table = claim_table(store, versions, "test", time.time())
    game = Game.new(Rules(), len(versions), seed)
    rng = random.Random(seed)
    choices = []
    while not game.is_over:
        legal = game.legal_moves()
        move = rng.choice(legal)
        choices.append(choice_of(legal, move))
        game.apply(move)
    assert game.outcome is not None
    n = len(choices)
    recorded = record_game(store, table.id, 0, versions, FinishedGame(
        "contest", 0, game.outcome.totals, game.outcome.places, (0,) * len(versions),
        (False,) * len(versions), time.time(), time.time(),
        PlayLog(tuple(choices), (1.0,) * n, tuple(range(1, n + 1))),
        {"hands_played": game.outcome.hands_played}), f"g{table.id}", time.time(),
        (seed, Rules().to_json()))
    finish_table(store, table.id, time.time())
    playing = [v for c in store.contestants() for v in store.playing_versions(c.id, 2)]
    publish_board(store, board_rows(scored_games(store), playing, store.contestants(), 4),
                  time.time())
    assert recorded
    return max(g.game_index for g in scored_games(store))
