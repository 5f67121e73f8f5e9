"""The contest's phases: before, open, frozen, finals, done; and the finals themselves.

**How the phase is decided, stated once.** Once the finals have started the phase is
``finals``, and ``done`` when they are over; nothing moves it back (a finals' board must not
change under its contestants). Before that, a phase the organiser set with ``craits contest
phase DIR PHASE`` wins over the dates of ``[phases]`` (so a contest can be frozen early, or
reopened, without editing the file); ``craits contest phase DIR dates`` hands control back to
the dates. The finals start either way: by the command, or when ``[phases] finals`` comes and
the ladder next looks (``finals_turn``).

**The finals.** When they start, the top ``[phases] finalists`` versions of the published board
are fixed as the finalists, and the last claimed table is noted: from then on the ladder seats
only finalists, and the board and the matchmaker read only the games of later tables (ratings
reset: a finalist's place depends on the finals alone, all playing the same field). The board
as it stood then is kept too (``board_at_finals``): the final results place the versions that
did not reach the finals by it, after the finalists. When each finalist has played ``[phases]
finals_deal_sets`` deal sets of the finals, the finals are done, the ladder stops, and ``craits
contest export`` writes the results.

Everything is in the store's ``meta`` table (``phase``, ``finals``, ``finals_board``), so
``craits contest phase`` works on a contest being served (SQLite WAL: the service sees it at
its next step) and a killed service's successor carries on in the same phase. Every function
takes the time as an argument: tests run them on a virtual clock.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Final

from craits.ratings.results import ScoredGame

from .config import ContestConfig
from .store import ContestStore

ORDER: Final = ("before", "open", "frozen", "finals", "done")
SETTABLE: Final = ("open", "frozen", "finals", "dates")
PHASE_KEY, FINALS_KEY, BOARD_KEY = "phase", "finals", "finals_board"


class PhaseError(Exception):
    """The phase cannot be moved as asked; the message says why."""


@dataclass(frozen=True, slots=True)
class Finals:
    """The finals once started: who plays, from which table on, until how many deal sets."""

    finalists: tuple[int, ...]
    """Version ids, in the board's order when the finals started."""
    after_table: int
    """The last ladder table claimed before the finals: only later tables are finals games."""
    deal_sets: int
    started_at: float
    done_at: float | None = None


def _meta(store: ContestStore, key: str) -> str | None:
    rows = store.read("SELECT value FROM meta WHERE key = ?", (key,))
    return str(rows[0][0]) if rows else None


def _put(store: ContestStore, values: dict[str, str | None]) -> None:
    """Set each key to its value (None deletes it), all in one transaction."""
    with store.transaction() as db:
        for name, text in values.items():
            if text is None:
                db.execute("DELETE FROM meta WHERE key = ?", (name,))
            else:
                db.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO "
                           "UPDATE SET value = excluded.value", (name, text))


def finals_of(store: ContestStore) -> Finals | None:
    """The finals, once started."""
    text = _meta(store, FINALS_KEY)
    if text is None:
        return None
    data = json.loads(text)
    return Finals(tuple(data["finalists"]), data["after_table"], data["deal_sets"],
                  data["started_at"], data.get("done_at"))


def phase_now(config: ContestConfig, store: ContestStore, now: float) -> str:
    """The phase at ``now`` (module doc for the rule)."""
    finals = finals_of(store)
    if finals is not None:
        return "done" if finals.done_at is not None else "finals"
    return _meta(store, PHASE_KEY) or config.phases.at(dt.datetime.fromtimestamp(now, dt.UTC))


def set_phase(config: ContestConfig, store: ContestStore, phase: str, now: float) -> str:
    """The organiser's command: move to ``phase`` (or back to the ``dates``); the phase now."""
    if phase not in SETTABLE:
        raise PhaseError(f"unknown phase {phase!r}: give one of {', '.join(SETTABLE)}")
    finals = finals_of(store)
    if finals is not None:
        raise PhaseError(f"the finals started already (the contest is "
                         f"{phase_now(config, store, now)}); they cannot be undone")
    if phase == "finals":
        start_finals(config, store, now)
    else:
        _put(store, {PHASE_KEY: None if phase == "dates" else phase})
    return phase_now(config, store, now)


def start_finals(config: ContestConfig, store: ContestStore, now: float) -> Finals:
    """Fix the finalists (the board's top ``[phases] finalists``) and start the finals."""
    rows = store.standings()
    if len(rows) < 2:
        raise PhaseError(f"the finals need at least 2 versions on the board, and it has "
                         f"{len(rows)}: let the ladder play first")
    top = [int(r["version_id"]) for r in rows[:config.phases.finalists]]
    last = store.read("SELECT COALESCE(MAX(id), 0) FROM ladder_tables")[0][0]
    finals = Finals(tuple(top), int(last), config.phases.finals_deal_sets, now)
    _put(store, {FINALS_KEY: json.dumps(asdict(finals)), PHASE_KEY: None,
                 BOARD_KEY: json.dumps(rows)})
    return finals


def board_at_finals(store: ContestStore) -> list[dict[str, Any]]:
    """The published board's rows when the finals started, best first (none before)."""
    text = _meta(store, BOARD_KEY)
    rows: list[dict[str, Any]] = [] if text is None else json.loads(text)
    return rows


def finals_games(finals: Finals | None, games: Sequence[ScoredGame]) -> list[ScoredGame]:
    """The games that count now: every game, or in the finals only the finals' tables."""
    if finals is None:
        return list(games)
    return [g for g in games if g.meeting_index > finals.after_table]


def finals_turn(config: ContestConfig, store: ContestStore,
                games: Callable[[], Sequence[ScoredGame]], playing: Sequence[int], now: float
                ) -> bool:
    """Whether the ladder plays another table: it starts the finals when their date has come,
    and ends them (done) once every finalist still ``playing`` (a suspended one is not) has
    its deal sets, or fewer than two can play; False once done. ``games`` is read only in
    the finals (a done contest's idle ladder reads no games)."""
    finals = finals_of(store)
    if finals is None:
        dated = config.phases.finals
        if _meta(store, PHASE_KEY) is None and dated is not None and now >= dated.timestamp():
            try:
                finals = start_finals(config, store, now)
            except PhaseError:
                return True  # too few versions yet: the ladder plays on until there are
        else:
            return True
    if finals.done_at is not None:
        return False
    played = deal_sets_played(finals, games())
    left = [v for v in finals.finalists if v in playing]
    if len(left) < 2 or min(played[v] for v in left) >= finals.deal_sets:
        _put(store, {FINALS_KEY: json.dumps(asdict(finals) | {"done_at": now})})
        return False
    return True


def deal_sets_played(finals: Finals, games: Sequence[ScoredGame]) -> dict[int, int]:
    """Finals deal sets each finalist has played."""
    tables: dict[int, set[int]] = {v: set() for v in finals.finalists}
    for game in finals_games(finals, games):
        for seat in game.seats:
            if int(seat) in tables:
                tables[int(seat)].add(game.meeting_index)
    return {v: len(t) for v, t in tables.items()}
