"""The durable tournament store: SQLite in WAL mode, one transaction per state change.

What "nothing is ever lost" rests on:

- A finished game (result, its compressed record, the job turning ``done``) is written in ONE
  transaction, so after ``kill -9`` a game is either wholly recorded or not at all.
- ``games.job_id`` is UNIQUE and ``record_game`` checks the job first, so recording the same job
  twice stores it once (the second call returns False).
- ``reset_running`` (on resume) returns jobs a dead runner had claimed to ``pending``; they are
  replayed from their seeds. Finished jobs are never touched.

Durability: ``journal_mode=WAL`` with ``synchronous=NORMAL`` by default. In WAL mode NORMAL never
corrupts the database and loses nothing when the *process* dies (``kill -9``, a crash): a commit
is in the WAL file, in the OS's hands, before ``COMMIT`` returns. Only a power cut or OS crash
can roll back the last few commits, and then those games are simply replayed from their seeds on
resume. FULL would add an fsync to every game for no gain in that contract; pass
``synchronous="FULL"`` to ``Store.open`` where the machine itself is not trusted.

Threads: the runner calls the store from worker threads (``trio.to_thread.run_sync``) that come
from a cache and change from call to call. The store therefore holds ONE connection
(``check_same_thread=False``) behind a lock: every method takes the lock for its whole
transaction, so statements of two transactions never interleave on the connection, and there is
no per-thread connection left open in a cached thread. SQLite admits one writer at a time anyway,
and each write here is small. Other processes (``craits tournament show`` during a run) open their
own store and read concurrently, as WAL allows.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import uuid
from collections.abc import Callable, Collection, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from craits.dealkey import run_key
from craits.ratings.results import ScoredGame
from craits.ratings.standings import Standings, compute_standings
from craits.sqlite_tx import write_transaction
from craits.tournament.plan.config import TournamentConfig, config_from_dict
from craits.tournament.plan.schedule import Job, build_schedule, seating_major

from .dbfile import OPEN_MODES, open_connection
from .dbfile import OpenMode as OpenMode
from .dbfile import StoreError as StoreError
from .game_records import FinishedGame
from .legacy import LogEntry
from .record_codec import encode
from .schema import RECORDS_VERSION

TOURNAMENT_STATUSES: Final = ("created", "running", "paused", "finished")
JOB_STATUSES: Final = ("pending", "running", "done", "skipped")

CSV_FIELDS: Final = (
    "game_index", "meeting_index", "deal_set", "rotation", "seed", "seat", "bot", "total",
    "place", "strikes", "forfeited", "started", "finished",
)
"""Columns of ``export_rows``: one row per seat of every finished game (``seed`` is None while
another seating of the game's deal is still to be played: ``deals_in_play``)."""


@dataclass(frozen=True, slots=True)
class TournamentInfo:
    """A tournament's header and progress."""

    id: str
    name: str
    seed: int | None
    """The organiser's seed (a testing tournament), or None: deals from a secret key."""
    created: str
    status: str
    jobs: dict[str, int]
    """How many jobs are in each status (every status present, possibly 0)."""
    workdir: Path | None = None
    """The directory the tournament was started from: its bot commands run there (None for a
    tournament stored before the store kept it)."""

    @property
    def total(self) -> int:
        """Games in the schedule."""
        return sum(self.jobs.values())


@dataclass(frozen=True, slots=True)
class RecordRow:
    """A recorded game as the store keeps it beside its result (``records.py``)."""

    outcome: dict[str, Any]
    record: bytes | None
    """The compressed record; None for a game kept as an old log (``Store.game_log``)."""


class Store:
    """Tournaments, their schedules, results and game logs in one SQLite file."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        """Prefer ``Store.open``, which configures the connection and migrates the schema."""
        self._db = connection
        self._lock = threading.RLock()
        self.version: int = connection.execute("PRAGMA user_version").fetchone()[0]
        """The schema version: below the newest only in a store opened to read (a
        reader never migrates), whose games all have old logs."""

    # ------------------------------------------------------------------ lifecycle
    @staticmethod
    def open(
        path: str | Path, synchronous: str = "NORMAL", mode: OpenMode = "create"
    ) -> Store:
        """Open a store file; ``":memory:"`` for a throwaway one.

        ``mode``: ``create`` (the file and its directory if missing), ``write`` (an existing
        store) or ``read`` (an existing store, never written: no migration either). A file that
        is not a store, or cannot be opened so, is a ``StoreError`` saying why, and is left as
        it was (``storefile``).
        """
        if synchronous not in ("NORMAL", "FULL"):
            raise StoreError(f"synchronous must be NORMAL or FULL, got {synchronous!r}")
        if mode not in OPEN_MODES:
            raise StoreError(f"mode must be one of {', '.join(OPEN_MODES)}, got {mode!r}")
        return Store(open_connection(path, synchronous, mode))

    def close(self) -> None:
        """Close the connection (the WAL is checkpointed by SQLite)."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def file(self) -> Path | None:
        """The database file as SQLite opened it (None for ``:memory:``): what the report
        shows the bots' log paths relative to."""
        with self._lock:
            name = self._db.execute("PRAGMA database_list").fetchone()[2]
        return Path(name) if name else None

    def pragma(self, name: str) -> Any:
        """Read one PRAGMA (``journal_mode``, ``synchronous``, ``user_version``...)."""
        with self._lock:
            return self._db.execute(f"PRAGMA {name}").fetchone()[0]

    def _transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """A write transaction taken up front: all or nothing (``sqlite_tx``)."""
        return write_transaction(self._db, self._lock)

    # ------------------------------------------------------------------ tournaments
    def create_tournament(
        self, config: TournamentConfig, tournament_id: str | None = None,
        workdir: Path | None = None,
    ) -> str:
        """Store a tournament and its whole schedule (one transaction); returns its id.

        ``workdir`` is where its bot commands are to run, on this run and every resume (a
        command may name files relative to it); None leaves them in whatever directory the
        runner is in.
        """
        tid = tournament_id or uuid.uuid4().hex[:10]
        key = run_key(config.seed)
        jobs = build_schedule(config, tid, key)
        with self._transaction() as db:
            if db.execute("SELECT 1 FROM tournaments WHERE id=?", (tid,)).fetchone():
                raise StoreError(f"tournament {tid!r} already exists")
            db.execute(
                "INSERT INTO tournaments (id, name, config, seed, created, status, workdir,"
                " deal_key) VALUES (?, ?, ?, ?, ?, 'created', ?, ?)",
                (tid, config.name, _json(config.to_dict()), config.seed or 0, _now(),
                 None if workdir is None else str(workdir), key.hex),
            )
            db.executemany(
                "INSERT INTO jobs (tournament_id, game_index, meeting_index, deal_set, rotation,"
                " seats, seed, spec) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                ((tid, j.game_index, j.meeting_index, j.deal_set, j.rotation, _json(j.seats),
                  j.seed, _json(j.to_dict())) for j in jobs),
            )
        return tid

    def tournaments(self) -> list[TournamentInfo]:
        """Every tournament, oldest first."""
        with self._lock:
            ids = [r["id"] for r in self._db.execute(
                "SELECT id FROM tournaments ORDER BY created, id")]
            return [self.tournament(tid) for tid in ids]

    def tournament(self, tournament_id: str) -> TournamentInfo:
        """One tournament's header and job counts."""
        with self._lock:
            row = self._tournament_row(tournament_id)
            counts = dict.fromkeys(JOB_STATUSES, 0)
            for r in self._db.execute(
                "SELECT status, COUNT(*) AS n FROM jobs WHERE tournament_id=? GROUP BY status",
                (tournament_id,),
            ):
                counts[r["status"]] = r["n"]
        workdir = dict(row).get("workdir")  # none in a version 1 store opened to read
        seed = json.loads(row["config"]).get("seed")  # stored configs before keys always had one
        return TournamentInfo(row["id"], row["name"], seed, row["created"], row["status"],
                              counts, None if workdir is None else Path(workdir))

    def tournament_name(self, tournament_id: str) -> str:
        """A tournament's name alone (``tournament`` also counts its jobs)."""
        with self._lock:
            return str(self._tournament_row(tournament_id)["name"])

    def config(self, tournament_id: str) -> TournamentConfig:
        """The configuration the tournament was created with."""
        with self._lock:
            row = self._tournament_row(tournament_id)
        return config_from_dict(json.loads(row["config"]))

    def set_status(self, tournament_id: str, status: str) -> None:
        """Mark the tournament created, running, paused or finished."""
        if status not in TOURNAMENT_STATUSES:
            raise StoreError(f"unknown tournament status {status!r}")
        with self._transaction() as db:
            self._tournament_row(tournament_id)
            db.execute("UPDATE tournaments SET status=? WHERE id=?", (status, tournament_id))

    def delete_tournament(self, tournament_id: str) -> None:
        """Forget a tournament that has no recorded game (e.g. its bots could not start): it
        holds nothing worth keeping. One with games is never deleted (``StoreError``)."""
        with self._transaction() as db:
            self._tournament_row(tournament_id)
            played = db.execute("SELECT COUNT(*) FROM games g JOIN jobs j ON j.id = g.job_id"
                                " WHERE j.tournament_id=?", (tournament_id,)).fetchone()[0]
            if played:
                raise StoreError(f"tournament {tournament_id!r} has {played} recorded games")
            db.execute("DELETE FROM jobs WHERE tournament_id=?", (tournament_id,))
            db.execute("DELETE FROM tournaments WHERE id=?", (tournament_id,))

    def _tournament_row(self, tournament_id: str) -> sqlite3.Row:
        row: sqlite3.Row | None = self._db.execute(
            "SELECT * FROM tournaments WHERE id=?", (tournament_id,)).fetchone()
        if row is None:
            raise StoreError(f"no tournament {tournament_id!r}")
        return row

    # ------------------------------------------------------------------ jobs
    def jobs(self, tournament_id: str, status: str | None = None) -> list[Job]:
        """The schedule (or the jobs in one status), in game order."""
        sql = "SELECT spec FROM jobs WHERE tournament_id=?"
        args: tuple[Any, ...] = (tournament_id,)
        if status is not None:
            sql, args = sql + " AND status=?", (*args, status)
        with self._lock:
            rows = self._db.execute(sql + " ORDER BY game_index", args).fetchall()
        return [Job.from_dict(json.loads(r["spec"])) for r in rows]

    def claim_next(
        self, tournament_id: str, can_seat: Callable[[tuple[str, ...]], bool] | None = None
    ) -> Job | None:
        """Mark the first pending job (in game order) running and return it; None if none fits.

        ``can_seat`` sees each candidate's seats (bot per seat) and says whether the runner can
        start it now, e.g. whether every bot is under its limit of concurrent tables.

        Seating-major (``schedule.seating_major``): only jobs of the lowest seating that still
        has a job pending or running are candidates, so no game of seating r + 1 is claimed
        before every game of seating r is recorded (and its bots' processes can be ended); a
        resumed run starts again at the lowest seating left.
        """
        phased = seating_major(self.config(tournament_id))
        with self._transaction() as db:
            cursor = db.execute(
                "SELECT id, seats FROM jobs WHERE tournament_id=? AND status='pending'"
                + (" AND rotation=(SELECT MIN(rotation) FROM jobs WHERE tournament_id=?"
                   " AND status IN ('pending', 'running'))" if phased else "")
                + " ORDER BY game_index", (tournament_id,) * (2 if phased else 1),
            )
            chosen = next((row["id"] for row in cursor
                           if can_seat is None or can_seat(tuple(json.loads(row["seats"])))),
                          None)
            cursor.close()
            if chosen is None:
                return None
            db.execute("UPDATE jobs SET status='running', claimed=? WHERE id=?", (_now(), chosen))
            spec = db.execute("SELECT spec FROM jobs WHERE id=?", (chosen,)).fetchone()["spec"]
        return Job.from_dict(json.loads(spec))

    def reset_running(self, tournament_id: str) -> int:
        """On resume: jobs left ``running`` by a dead runner go back to ``pending``.

        Their games were never recorded (a game is recorded in one transaction), so nothing of
        theirs is in ``games``; any stray rows of a job that is not done are deleted all the same,
        so that a replay starts clean. Returns how many jobs were reset.
        """
        with self._transaction() as db:
            stray = ("SELECT g.id FROM games g JOIN jobs j ON j.id = g.job_id"
                     " WHERE j.tournament_id=? AND j.status != 'done'")
            db.execute(f"DELETE FROM events WHERE game_id IN ({stray})", (tournament_id,))
            db.execute(f"DELETE FROM games WHERE id IN ({stray})", (tournament_id,))
            cursor = db.execute("UPDATE jobs SET status='pending', claimed=NULL"
                                " WHERE tournament_id=? AND status='running'", (tournament_id,))
            return cursor.rowcount

    def skip_pending(self, tournament_id: str) -> int:
        """Mark every pending job ``skipped`` (a match whose SPRT has decided); returns how many."""
        with self._transaction() as db:
            cursor = db.execute("UPDATE jobs SET status='skipped'"
                                " WHERE tournament_id=? AND status='pending'", (tournament_id,))
            return cursor.rowcount

    # ------------------------------------------------------------------ games
    def record_game(self, game: FinishedGame) -> bool:
        """Store a finished game and its record, atomically; False if it was already stored.

        The job may be pending, running or skipped (a game that was under way when a match
        stopped still counts); a job already ``done`` keeps its first result. The check and the
        write share one ``BEGIN IMMEDIATE`` transaction, so two recorders cannot both pass it;
        ``games.job_id UNIQUE`` stands behind it all the same.
        """
        with self._transaction() as db:
            job = db.execute(
                "SELECT id, status, seats, seed, json_extract(spec, '$.rules') AS rules FROM jobs"
                " WHERE tournament_id=? AND game_index=?", (game.tournament_id, game.game_index),
            ).fetchone()
            if job is None:
                raise StoreError(f"no job {game.game_index} in tournament {game.tournament_id!r}")
            if job["status"] == "done":
                return False
            _check_shape(game, len(json.loads(job["seats"])))
            db.execute(
                "INSERT INTO games (job_id, seed, rules, seats, totals, places, strikes,"
                " forfeited, outcome, started, finished, record)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (job["id"], job["seed"], job["rules"], job["seats"],
                 _json(game.totals), _json(game.places), _json(game.strikes),
                 _json(game.forfeited), _json(dict(game.outcome)), _iso(game.started),
                 _iso(game.finished), encode(game.play)),
            )
            db.execute("UPDATE jobs SET status='done' WHERE id=?", (job["id"],))
        return True

    def results(self, tournament_id: str) -> list[ScoredGame]:
        """Every recorded game's result, in game order: the input of ``compute_standings``."""
        with self._lock:
            rows = self._db.execute(_RESULTS_SQL, (tournament_id,)).fetchall()
        return [_result(r) for r in rows]

    def standings(self, tournament_id: str) -> Standings:
        """``compute_standings`` over the stored results."""
        config = self.config(tournament_id)
        return compute_standings(self.results(tournament_id), config.bot_names)

    def job(self, tournament_id: str, game_index: int) -> Job | None:
        """One job of the schedule (None if there is no such game)."""
        with self._lock:
            row = self._db.execute("SELECT spec FROM jobs WHERE tournament_id=? AND"
                                   " game_index=?", (tournament_id, game_index)).fetchone()
        return None if row is None else Job.from_dict(json.loads(row["spec"]))

    def result(self, tournament_id: str, game_index: int) -> ScoredGame | None:
        """One recorded game's result (None if it is not recorded)."""
        with self._lock:
            row = self._db.execute(_RESULT_SQL, (tournament_id, game_index)).fetchone()
        return None if row is None else _result(row)

    def game_record(self, tournament_id: str, game_index: int) -> RecordRow | None:
        """A recorded game's outcome and record (None if the game is not recorded)."""
        record = "g.record" if self.version >= RECORDS_VERSION else "NULL AS record"
        with self._lock:
            row = self._db.execute(
                f"SELECT g.outcome, {record} FROM games g JOIN jobs j ON j.id = g.job_id"
                " WHERE j.tournament_id=? AND j.game_index=?", (tournament_id, game_index),
            ).fetchone()
        return None if row is None else RecordRow(json.loads(row["outcome"]), row["record"])

    def hands_played(self, tournament_id: str) -> dict[int, int]:
        """Hands played in each recorded game, by game index, from the stored outcomes (no
        record is read: this is what a list of 100,000 games needs)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT j.game_index, json_extract(g.outcome, '$.hands_played') AS hands"
                " FROM games g JOIN jobs j ON j.id = g.job_id WHERE j.tournament_id=?",
                (tournament_id,)).fetchall()
        return {r["game_index"]: int(r["hands"] or 0) for r in rows}

    def game_log(self, tournament_id: str, game_index: int) -> list[LogEntry]:
        """A game's old log in order, as stores before version 4 kept it (``legacy.py``); empty
        for a game not recorded, or recorded as a record."""
        with self._lock:
            rows = self._db.execute(
                "SELECT e.kind, e.seat, e.elapsed_ms, e.data FROM events e"
                " JOIN games g ON g.id = e.game_id JOIN jobs j ON j.id = g.job_id"
                " WHERE j.tournament_id=? AND j.game_index=? ORDER BY e.idx",
                (tournament_id, game_index),
            ).fetchall()
        return [LogEntry(r["kind"], r["seat"], json.loads(r["data"]), r["elapsed_ms"])
                for r in rows]

    def deals_in_play(self, tournament_id: str, games: Collection[int] | None = None
                      ) -> dict[int, tuple[int, ...]]:
        """Recorded games whose deal some other game still to be played (pending or running)
        will get too, each with those games' indices; given ``games``, those of them whose deal
        that is, recorded or not (a game being played, too: its public moves are the deal's
        cards as they are played, ``craits.contest.web.tournament.LiveRule``).

        The seatings of a duplicate deal set share one seed, and the engine is public, so a
        recorded game's seed or cards published before its siblings are played hand their
        players the deal in advance. Everything that is published (the CSV, the HTML report)
        holds such a game's deal back until this no longer names it. Skipped jobs are never
        played, so they hold nothing back. Reads only the jobs' own columns (no JSON), so it
        costs little in a tournament of 100,000 games; given ``games``, only the jobs that share
        their seeds, found by the seed index (a page asks it of a few live games at each
        request: 0.03 ms at 90,000 jobs, 60 ms by a walk through them all).
        """
        sql = "SELECT game_index, seed, status FROM jobs WHERE tournament_id=?"
        args: list[object] = [tournament_id]
        order = "game_index"
        if games is not None:
            sql += (" AND seed IN (SELECT seed FROM jobs WHERE tournament_id=? AND game_index IN"
                    f" ({','.join('?' * len(games))}))")
            args += [tournament_id, *games]
            order = "+game_index"  # sort the few rows found: asked for them in game order,
            # SQLite (which cannot tell how few share the seeds) walks every job, not the index
        with self._lock:
            rows = self._db.execute(f"{sql} ORDER BY {order}", args).fetchall()
        to_play: dict[int, list[int]] = {}
        for r in rows:
            if r["status"] in ("pending", "running"):
                to_play.setdefault(r["seed"], []).append(r["game_index"])
        asked = None if games is None else set(games)
        held: dict[int, tuple[int, ...]] = {}
        for r in rows:
            index = r["game_index"]
            if (r["status"] == "done" if asked is None else index in asked) \
                    and r["seed"] in to_play:
                others = tuple(g for g in to_play[r["seed"]] if g != index)
                if others:
                    held[index] = others
        return held

    def export_rows(self, tournament_id: str) -> list[dict[str, Any]]:
        """One dict per seat of every recorded game, keyed by ``CSV_FIELDS``, in game order.

        The CSV is made to be shared, so the seed of a game whose deal is still to be played at
        another seating is None (an empty cell) until that seating has been played. The results
        are read before the jobs, as a runner may record games meanwhile: a job only moves on
        (to done, or skipped), so a game read as recorded whose sibling is then still to play
        is always caught."""
        with self._lock:
            rows = self._db.execute(_RESULTS_SQL, (tournament_id,)).fetchall()
        in_play = self.deals_in_play(tournament_id)
        return [row for r in rows for row in _seat_rows(r, r["game_index"] in in_play)]


def _seat_rows(r: sqlite3.Row, hide_seed: bool = False) -> Iterator[dict[str, Any]]:
    """The CSV rows of one stored game, seat by seat (``hide_seed``: its seed as None)."""
    game = {f: r[f] for f in ("game_index", "meeting_index", "deal_set", "rotation", "seed")}
    if hide_seed:
        game["seed"] = None
    times = {"started": r["started"], "finished": r["finished"]}
    columns = [json.loads(r[c]) for c in ("seats", "totals", "places", "strikes", "forfeited")]
    for seat, values in enumerate(zip(*columns, strict=True)):
        per_seat = dict(zip(("bot", "total", "place", "strikes", "forfeited"), values, strict=True))
        yield {**game, "seat": seat, **per_seat, **times}


def _result(r: sqlite3.Row) -> ScoredGame:
    return ScoredGame(
        game_index=r["game_index"], meeting_index=r["meeting_index"], deal_set=r["deal_set"],
        rotation=r["rotation"], seats=tuple(json.loads(r["seats"])),
        totals=tuple(json.loads(r["totals"])), places=tuple(json.loads(r["places"])),
        strikes=tuple(json.loads(r["strikes"])), forfeited=tuple(json.loads(r["forfeited"])),
    )


_RESULTS_SQL: Final = (
    "SELECT j.game_index, j.meeting_index, j.deal_set, j.rotation, g.seed, g.seats, g.totals,"
    " g.places, g.strikes, g.forfeited, g.started, g.finished"
    " FROM games g JOIN jobs j ON j.id = g.job_id"
    " WHERE j.tournament_id=? ORDER BY j.game_index"
)
_RESULT_SQL: Final = _RESULTS_SQL.replace("ORDER BY j.game_index", "AND j.game_index=?")


def _check_shape(game: FinishedGame, seats: int) -> None:
    """Refuse a result whose per-seat columns do not match the job's table."""
    for name in ("totals", "places", "strikes", "forfeited"):
        if len(getattr(game, name)) != seats:
            raise StoreError(f"game {game.game_index}: {name} has "
                             f"{len(getattr(game, name))} entries for {seats} seats")


_ENCODER: Final = json.JSONEncoder(separators=(",", ":"))
"""One compact encoder for every column: ``json.dumps`` would build one per call, and a game
writes a log line per event."""


def _json(value: Any) -> str:
    return _ENCODER.encode(value)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="milliseconds")

