"""One recorded game of a tournament as plain values, read back from the store.

The store keeps a game as its job (seats, seed, rules), its result and one flat log in which
engine events, the bots' moves and the referee's strikes sit side by side. Replays and reports
want them apart: the moves to rebuild the game, the events to check the rebuild against, the
faults to say what the referee did. ``load_game`` and ``iter_games`` read a game with that split
made once (by ``tournament.records.read_log``, beside the code that writes the log).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from craits.engine import Rules
from craits.text import printable
from craits.tournament.records import LogError, LoggedFault, LoggedMove, read_log
from craits.tournament.results import GameResult
from craits.tournament.schedule import Job
from craits.tournament.store import Store, StoreError


class ReportError(Exception):
    """A stored game cannot be read back or shown (not recorded, unknown, inconsistent)."""


@dataclass(frozen=True, slots=True)
class StoredGame:
    """Everything known about one recorded game."""

    tournament_id: str
    tournament_name: str
    job: Job
    result: GameResult
    rules: Rules
    decisions: tuple[LoggedMove, ...]
    events: tuple[Mapping[str, Any], ...]
    """The engine events as stored (``Event.to_dict`` form): what a replay is checked against."""
    faults: tuple[LoggedFault, ...]

    @property
    def game_index(self) -> int:
        """Position of the game in the schedule."""
        return self.job.game_index

    @property
    def seats(self) -> tuple[str, ...]:
        """The bot at each seat."""
        return self.job.seats

    @property
    def seed(self) -> int:
        """The engine seed the game was dealt from."""
        return self.job.seed

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON: loadable by ``GameRecord.from_dict``, plus seats and result."""
        r = self.result
        return {
            "tournament": self.tournament_id,
            "game_index": self.game_index,
            "meeting_index": self.job.meeting_index,
            "deal_set": self.job.deal_set,
            "rotation": self.job.rotation,
            "seats": list(self.seats),
            "rules": self.rules.to_dict(),
            "players": len(self.seats),
            "seed": self.seed,
            "moves": [str(d.move) for d in self.decisions],
            "decisions": [
                {"seat": d.seat, "decision": d.decision, "elapsed_ms": d.elapsed_ms,
                 "defaulted": d.defaulted}
                for d in self.decisions
            ],
            "events": [dict(e) for e in self.events],
            "result": {"totals": list(r.totals), "places": list(r.places),
                       "strikes": list(r.strikes), "forfeited": list(r.forfeited)},
            "faults": [
                {"action": f.action, "seat": f.seat, "reason": f.reason, "detail": f.detail,
                 "decision": f.decision}
                for f in self.faults
            ],
        }


def load_game(store: Store, tournament_id: str, game_index: int) -> StoredGame:
    """One recorded game; ``ReportError`` says why when there is none."""
    name = _tournament_name(store, tournament_id)
    jobs = {j.game_index: j for j in store.jobs(tournament_id)}
    if game_index not in jobs:
        raise ReportError(f"tournament {tournament_id} has no game {game_index} "
                          f"(games 0 to {len(jobs) - 1})")
    results = [r for r in store.results(tournament_id) if r.game_index == game_index]
    if not results:
        raise ReportError(f"game {game_index} of tournament {tournament_id} is not recorded "
                          "(not played yet, or skipped)")
    return _build(store, tournament_id, name, jobs[game_index], results[0])


def iter_games(store: Store, tournament_id: str) -> Iterator[StoredGame]:
    """Every recorded game of a tournament, in schedule order, read one at a time."""
    name = _tournament_name(store, tournament_id)
    jobs = {j.game_index: j for j in store.jobs(tournament_id)}
    for result in store.results(tournament_id):
        yield _build(store, tournament_id, name, jobs[result.game_index], result)


def _tournament_name(store: Store, tournament_id: str) -> str:
    try:
        return store.tournament(tournament_id).name
    except StoreError as exc:
        raise ReportError(f"{exc} (see `craits tournament list`)") from None


def _build(store: Store, tid: str, name: str, job: Job, result: GameResult) -> StoredGame:
    """Split the flat log into moves, events and faults."""
    try:
        log = read_log(store.game_log(tid, job.game_index))
    except LogError as exc:
        raise ReportError(f"game {job.game_index}: {exc}") from None
    # A fault's detail may quote a bot; games recorded before the referee escaped it at the
    # source are escaped here, for the terminal and the HTML report alike.
    faults = tuple(replace(f, detail=printable(f.detail)) for f in log.faults)
    return StoredGame(tid, name, job, result, Rules.from_json(job.rules_json), log.moves,
                      log.events, faults)
