"""One recorded game of a tournament as plain values, read back from the store.

The store keeps a game as its job (seats, seed, rules), its result and outcome, and its record:
the moves with their times and the referee's faults (``tournament.records``). ``load_game``
rebuilds the events by replaying the moves, and checks the rebuilt game against the stored
outcome: a record that does not replay to it is a ``ReplayMismatch``, never shown as if it were
true. Games of a store from before records keep one flat log of events, moves and faults,
read as it is (``tournament.legacy``); ``steps.walk`` checks those events as it replays them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from craits.engine import Rules
from craits.ratings.results import ScoredGame
from craits.text import printable
from craits.tournament.plan.schedule import Job
from craits.tournament.store.database import RecordRow, Store, StoreError
from craits.tournament.store.game_records import (
    LoggedFault,
    LoggedMove,
    RecordError,
    check_outcome,
    rebuild,
)
from craits.tournament.store.legacy import LogError, read_log
from craits.tournament.store.record_codec import decode


class ReportError(Exception):
    """A stored game cannot be read back or shown (not recorded, unknown, inconsistent)."""


class ReplayMismatch(ReportError):
    """The stored game does not follow from its rules, seed and moves, or does not end as
    stored: a damaged store, or one written by another engine."""


@dataclass(frozen=True, slots=True)
class StoredGame:
    """Everything known about one recorded game."""

    tournament_id: str
    tournament_name: str
    job: Job
    result: ScoredGame
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
    """One recorded game, rebuilt; ``ReportError`` says why when there is none, and
    ``ReplayMismatch`` when its record does not replay to its stored outcome."""
    return _load(store, tournament_id, _tournament_name(store, tournament_id), game_index)


def iter_games(store: Store, tournament_id: str,
               indices: Iterable[int] | None = None) -> Iterator[StoredGame]:
    """The recorded games of a tournament (those of ``indices`` only, if given), in schedule
    order, read and rebuilt one at a time."""
    name = _tournament_name(store, tournament_id)
    wanted = None if indices is None else set(indices)
    for result in store.results(tournament_id):
        if wanted is None or result.game_index in wanted:
            yield _load(store, tournament_id, name, result.game_index)


def _load(store: Store, tid: str, name: str, game_index: int) -> StoredGame:
    """One game by its index: three small queries, whatever the size of the tournament."""
    job = store.job(tid, game_index)
    if job is None:
        total = store.tournament(tid).total
        raise ReportError(f"tournament {tid} has no game {game_index} (games 0 to {total - 1})")
    result = store.result(tid, game_index)
    row = store.game_record(tid, game_index)
    if result is None or row is None:
        raise ReportError(f"game {game_index} of tournament {tid} is not recorded "
                          "(not played yet, or skipped)")
    return _build(store, tid, name, job, result, row)


def _tournament_name(store: Store, tournament_id: str) -> str:
    try:
        return store.tournament_name(tournament_id)
    except StoreError as exc:
        raise ReportError(f"{exc} (see `craits tournament list`)") from None


def _build(store: Store, tid: str, name: str, job: Job, result: ScoredGame,
           row: RecordRow) -> StoredGame:
    """The game rebuilt from its record, or read from its old log."""
    rules = Rules.from_json(job.rules_json)
    if row.record is None:
        return _from_old_log(store, tid, name, job, result, rules)
    return from_record(tid, name, job, result, row.record, row.outcome)


def from_record(tid: str, name: str, job: Job, result: ScoredGame, record: bytes,
                outcome: Mapping[str, Any]) -> StoredGame:
    """A game rebuilt from its encoded record (``record_codec``) and checked against its
    stored outcome: public so that another store keeping the same encoding (the contest's
    ladder) is shown by the same viewer, with the same check."""
    rules = Rules.from_json(job.rules_json)
    where = f"game {job.game_index}"
    try:
        rebuilt = rebuild(rules, len(job.seats), job.seed, decode(record))
        check_outcome(rebuilt.game, result.totals, outcome)
    except RecordError as exc:
        raise ReplayMismatch(f"{where}: {exc}") from None
    events = tuple(e.to_dict() for e in rebuilt.game.events)
    return StoredGame(tid, name, job, result, rules, rebuilt.moves, events,
                      _escaped(rebuilt.faults))


def _from_old_log(store: Store, tid: str, name: str, job: Job, result: ScoredGame,
                  rules: Rules) -> StoredGame:
    """A game of a store before records: the old log split into moves, events and faults
    (``walk`` checks the events against a replay as it goes)."""
    try:
        log = read_log(store.game_log(tid, job.game_index))
    except LogError as exc:
        raise ReportError(f"game {job.game_index}: {exc}") from None
    return StoredGame(tid, name, job, result, rules, log.moves, log.events,
                      _escaped(log.faults))


def _escaped(faults: Iterable[LoggedFault]) -> tuple[LoggedFault, ...]:
    """A fault's detail may quote a bot; games recorded before the referee escaped it at the
    source are escaped here, for the terminal and the HTML report alike."""
    return tuple(replace(f, detail=printable(f.detail)) for f in faults)
