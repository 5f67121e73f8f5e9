"""One recorded game of a tournament as plain values, read back from the store.

The store keeps a game as its job (seats, seed, rules), its result and one flat log in which
engine events, the bots' moves and the referee's strikes sit side by side. Replays and reports
want them apart: the moves to rebuild the game, the events to check the rebuild against, the
faults to say what the referee did. ``load_game`` and ``iter_games`` do that split once.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from craits.engine import Move, MoveError, Rules
from craits.tournament.records import LogEntry
from craits.tournament.results import GameResult
from craits.tournament.schedule import Job
from craits.tournament.store import Store, StoreError

REFEREE_KINDS: Final = frozenset({"move", "strike", "forfeit", "fault"})
"""Log kinds written by the runner; every other kind is an engine event."""


class ReportError(Exception):
    """A stored game cannot be read back or shown (not recorded, unknown, inconsistent)."""


@dataclass(frozen=True, slots=True)
class Decision:
    """One move the referee applied, with who made it and how."""

    seat: int
    move: Move
    decision: int
    """The referee's decision number (0 when the log does not say)."""
    elapsed_ms: float | None
    defaulted: bool
    """True when the failure policy chose the move for a seat that did not answer in time."""


@dataclass(frozen=True, slots=True)
class Fault:
    """A strike, forfeit or other fault the referee logged against a seat."""

    action: str
    """``strike``, ``forfeit`` or ``fault`` (noted, no sanction)."""
    seat: int
    reason: str
    """What went wrong: timeout, bad_replies, crash, disconnect, error."""
    detail: str
    decision: int


@dataclass(frozen=True, slots=True)
class StoredGame:
    """Everything known about one recorded game."""

    tournament_id: str
    tournament_name: str
    job: Job
    result: GameResult
    rules: Rules
    decisions: tuple[Decision, ...]
    events: tuple[Mapping[str, Any], ...]
    """The engine events as stored (``Event.to_dict`` form): what a replay is checked against."""
    faults: tuple[Fault, ...]

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
    log = store.game_log(tid, job.game_index)
    try:
        decisions = tuple(_decision(e) for e in log if e.kind == "move")
    except (MoveError, KeyError) as exc:
        raise ReportError(f"game {job.game_index}: unreadable log entry: {exc}") from None
    events = tuple(e.data for e in log if e.kind not in REFEREE_KINDS)
    faults = tuple(_fault(e) for e in log if e.kind in ("strike", "forfeit", "fault"))
    return StoredGame(tid, name, job, result, Rules.from_json(job.rules_json), decisions,
                      events, faults)


def _decision(entry: LogEntry) -> Decision:
    data = entry.data
    return Decision(entry.seat, Move.parse(str(data["move"])), int(data.get("decision", 0)),
                    entry.elapsed_ms, bool(data.get("defaulted", False)))


def _fault(entry: LogEntry) -> Fault:
    data: Mapping[str, Any] = entry.data
    return Fault(entry.kind, entry.seat, str(data.get("kind", "")), str(data.get("detail", "")),
                 int(data.get("decision", 0)))

