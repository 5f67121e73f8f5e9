"""Each version's rating history, and a new version's verdict against its predecessor.

A contestant who uploads version 5 wants two answers: how its rating moved as games came in,
and whether it is really better than version 4. The first is the board's row for the version
after each refit that followed a table it played, kept (``rating_history``); the board itself
only holds the latest. The second
is ``craits.ratings.head_to_head`` over the games the two versions played *together* (both are
playing while the new one is among the latest ``[versions] playing``, so the matchmaker seats
them at tables): the Elo difference, the t interval over deal sets, and the likelihood of
superiority read from that same interval (LOS = T_{G-1}(elo / se)), the one interval method of
``docs/ratings.md``. Below its minimum of deal sets it says "not enough games" rather than a
number no one should trust. Comparing the two versions' board ratings instead would mix in
every other opponent's noise; the head-to-head is the question asked.

The predecessor is the same contestant's highest-numbered earlier version that has played
(a rejected version never did, so version 3 rejected makes version 4 the judge of 5).

Both tables are created here, on first use, with ``IF NOT EXISTS``: stores from before them
need no migration, and the ladder's own tables stay its own.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Sequence
from typing import Any, Final

from craits.ratings.intervals import HeadToHead, head_to_head
from craits.ratings.results import ScoredGame
from craits.ratings.studentt import t_cdf, t_quantile

from .store import ContestStore

TABLES: Final = """
CREATE TABLE IF NOT EXISTS rating_history (
    id INTEGER PRIMARY KEY,
    version_id INTEGER NOT NULL REFERENCES versions(id),
    at REAL NOT NULL,
    rating REAL NOT NULL,
    low REAL,
    high REAL,
    games INTEGER NOT NULL,
    deal_sets INTEGER NOT NULL,
    rank INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS rating_history_by_version ON rating_history(version_id, id);
CREATE TABLE IF NOT EXISTS verdicts (
    version_id INTEGER PRIMARY KEY REFERENCES versions(id),
    at REAL NOT NULL,
    verdict TEXT NOT NULL
);
"""
HISTORY_SHOWN: Final = 200
"""The latest points of a version's history the API returns (a plot needs no more)."""
CONFIDENCE: Final = 0.95

_ready: weakref.WeakSet[ContestStore] = weakref.WeakSet()


def _ensure(store: ContestStore) -> None:
    """Create the tables once per open store (module doc)."""
    if store not in _ready:
        with store.transaction() as db:
            for statement in TABLES.split(";"):
                if statement.strip():
                    db.execute(statement)
        _ready.add(store)


def predecessors(store: ContestStore, version_ids: Sequence[int]) -> dict[int, tuple[int, int]]:
    """For each version: (its predecessor's id, that version's number), where it has one that
    played (module doc)."""
    found: dict[int, tuple[int, int]] = {}
    for version_id in version_ids:
        rows = store.read(
            "SELECT p.id, p.number FROM versions v JOIN versions p ON p.contestant_id = "
            "v.contestant_id AND p.number < v.number WHERE v.id = ? AND EXISTS (SELECT 1 FROM "
            "game_seats s WHERE s.version_id = p.id) ORDER BY p.number DESC LIMIT 1",
            (version_id,))
        if rows:
            found[version_id] = (int(rows[0][0]), int(rows[0][1]))
    return found


def verdict(games: Sequence[ScoredGame], version: int, predecessor: int, number: int
            ) -> dict[str, Any]:
    """``version`` against ``predecessor`` (version ``number``) from their games together."""
    return verdict_of(head_to_head(games, str(version), str(predecessor), CONFIDENCE),
                      predecessor, number)


def verdict_of(h2h: HeadToHead, predecessor: int, number: int) -> dict[str, Any]:
    """The verdict as kept and shown, from the head-to-head of a version against its
    ``predecessor`` (version ``number``)."""
    los = None
    if h2h.low is not None and h2h.high is not None and h2h.units > 1:
        df = h2h.units - 1
        se = (h2h.high - h2h.low) / (2 * t_quantile(0.5 + CONFIDENCE / 2, df))
        los = t_cdf(h2h.elo / se, df) if se > 0 else None
    return {"predecessor_id": predecessor, "predecessor": number,
            "elo": round(h2h.elo, 1) if h2h.units else None,
            "low": None if h2h.low is None else round(h2h.low, 1),
            "high": None if h2h.high is None else round(h2h.high, 1),
            "los": None if los is None else round(los, 4), "deal_sets": h2h.units,
            "note": h2h.note}


def judge(games: Sequence[ScoredGame], rows: Sequence[dict[str, Any]],
          before: dict[int, tuple[int, int]]) -> dict[int, dict[str, Any]]:
    """The verdict of every listed version that has a predecessor (pure: a worker thread's)."""
    listed = {int(r["version_id"]) for r in rows}
    return {v: verdict(games, v, p, n) for v, (p, n) in before.items() if v in listed}


def record_refit(store: ContestStore, rows: Sequence[dict[str, Any]],
                 verdicts: dict[int, dict[str, Any]], now: float) -> None:
    """Keep the refit's board row of each version that played since its last point (a point
    per table it sat at, not per refit: 50 versions would otherwise add 50 rows per table),
    and replace the verdicts, each only by one resting on as many deal sets or more (in the
    finals the ratings read the finals' games alone: a verdict is not undone by that)."""
    _ensure(store)
    fresh = []
    for row in rows:
        last = store.read("SELECT games FROM rating_history WHERE version_id = ? ORDER BY id "
                          "DESC LIMIT 1", (row["version_id"],))
        if not last or last[0][0] != row["games"]:
            fresh.append(row)
    with store.transaction() as db:
        db.executemany(
            "INSERT INTO rating_history (version_id, at, rating, low, high, games, deal_sets, "
            "rank) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(r["version_id"], now, r["rating"], r["low"], r["high"], r["games"],
              r["deal_sets"], r["rank"]) for r in fresh])
        db.executemany("INSERT INTO verdicts (version_id, at, verdict) VALUES (?, ?, ?) "
                       "ON CONFLICT (version_id) DO UPDATE SET at = excluded.at, "
                       "verdict = excluded.verdict WHERE json_extract(excluded.verdict, "
                       "'$.deal_sets') >= json_extract(verdicts.verdict, '$.deal_sets')",
                       [(v, now, json.dumps(d)) for v, d in verdicts.items()])


def ratings_of(store: ContestStore, version_id: int) -> dict[str, Any]:
    """What a status shows of a version's ratings: its history (oldest first, the latest
    ``HISTORY_SHOWN`` points) and its verdict (None before it has a predecessor's games)."""
    _ensure(store)
    points = store.read("SELECT at, rating, low, high, games, deal_sets, rank FROM "
                        "rating_history WHERE version_id = ? ORDER BY id DESC LIMIT ?",
                        (version_id, HISTORY_SHOWN))
    history = [{"at": at, "rating": rating, "low": low, "high": high, "games": games,
                "deal_sets": sets, "rank": rank}
               for at, rating, low, high, games, sets, rank in reversed(points)]
    found = store.read("SELECT verdict FROM verdicts WHERE version_id = ?", (version_id,))
    return {"history": history, "verdict": json.loads(found[0][0]) if found else None}


def verdict_line(verdict: dict[str, Any]) -> str:
    """A verdict as ``craits contest status`` prints it."""
    against = f"against v{verdict.get('predecessor')}"
    if verdict.get("low") is None and verdict.get("high") is None:
        elo = verdict.get("elo")
        shown = "" if elo is None else f" {elo:+.0f} Elo,"
        return f"{against}:{shown} {verdict.get('note')}"
    low, high = verdict.get("low"), verdict.get("high")
    interval = f"[{'-inf' if low is None else f'{low:+.0f}'}, " \
               f"{'+inf' if high is None else f'{high:+.0f}'}]"
    los = verdict.get("los")
    shown_los = "" if los is None else f", LOS {100 * los:.1f}%"
    return (f"{against}: {verdict.get('elo'):+.0f} Elo {interval}{shown_los} over "
            f"{verdict.get('deal_sets')} deal sets")
