"""Real tournaments for the rating calibration, played in this process.

A tournament here is the tournament's own schedule (``build_schedule`` of a ``TournamentConfig``:
the same meetings, deal sets, seatings and deal seeds a ``craits tournament`` run plays), each job
played to the end on the engine by the bundled bots' strategies in-process (``craits_sdk``'s
``play_game``: no referee, no processes, so thousands of games are affordable on a small machine),
and turned into the same ``ScoredGame`` the store hands to the standings. What the calibration
measures is therefore the rating code users see, fed the finishes real bots produce.

Two ways to deal: *duplicate* (the schedule's seeds: every seating of a deal set gets the same
cards) and *independent* (each game its own seed, so card luck no longer cancels inside a deal
set; the deal set is still the unit the ratings resample, as it would be for a user who turned
duplicate deals off). Played tournaments can be kept in a JSON-lines cache so that the statistics
can be re-measured without replaying the games.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from craits.engine import Rules
from craits.ratings.results import ScoredGame
from craits.tournament.plan.config import TournamentConfig, config_from_dict
from craits.tournament.plan.schedule import Job, build_schedule
from craits_bots.registry import BUNDLED, load
from craits_sdk import play_game


@dataclass(frozen=True, slots=True)
class Field:
    """Who plays: ``(name, bundled bot)`` per participant, and how they meet."""

    bots: tuple[tuple[str, str], ...]
    table_size: int
    duplicate: bool = True
    short_game: bool = True

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.bots)

    def key(self, deal_sets: int, seed: int) -> str:
        """The cache key of one tournament of this field."""
        bots = ",".join(f"{n}={b}" for n, b in self.bots)
        deal = "dup" if self.duplicate else "ind"
        return f"{bots}|k{self.table_size}|{deal}|short{int(self.short_game)}|d{deal_sets}|s{seed}"


def null_field(bots: int, table_size: int, duplicate: bool = True) -> Field:
    """``bots`` copies of the bundled ``random`` bot (every true rating is 0)."""
    return Field(tuple((f"r{i}", "random") for i in range(bots)), table_size, duplicate)


def config_of(field: Field, deal_sets: int, seed: int) -> TournamentConfig:
    """The tournament configuration a user would write for this field."""
    for _, bundled in field.bots:
        if bundled not in BUNDLED:
            raise ValueError(f"no bundled bot {bundled!r}; known: {', '.join(BUNDLED)}")
    return config_from_dict({
        "seed": seed, "table_size": field.table_size, "deal_sets": deal_sets,
        "rules": {"short_game": field.short_game},
        "bots": [{"name": n, "bundled": b} for n, b in field.bots],
    })


def play_tournament(field: Field, deal_sets: int, seed: int) -> list[ScoredGame]:
    """Every game of the schedule, played in process, as the standings' results."""
    config = config_of(field, deal_sets, seed)
    rules = config.rules
    return [_play(job, rules, field.duplicate) for job in build_schedule(config, f"cal-{seed}")]


def _play(job: Job, rules: Rules, duplicate: bool) -> ScoredGame:
    bots = [load(spec.bundled or spec.name)() for spec in job.launch]
    seed = job.seed if duplicate else _independent_seed(job)
    game_id = f"{job.tournament_id}:{job.game_index}"
    outcome = play_game(bots, rules, seed, game_id=game_id)
    return ScoredGame(job.game_index, job.meeting_index, job.deal_set, job.rotation, job.seats,
                      outcome.totals, outcome.places)


def _independent_seed(job: Job) -> int:
    """A fresh deal for each seating (63 bits of SHA-256 of the deal set's seed and seating)."""
    digest = hashlib.sha256(f"independent:{job.seed}:{job.rotation}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


class GameCache:
    """Played tournaments by key, kept in a JSON-lines file (or only in memory)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.tournaments: dict[str, list[ScoredGame]] = {}
        if path is not None and path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                entry = json.loads(line)
                self.tournaments[entry["key"]] = [_result(r) for r in entry["games"]]

    def get(self, key: str) -> list[ScoredGame] | None:
        return self.tournaments.get(key)

    def put(self, key: str, results: Sequence[ScoredGame]) -> None:
        self.tournaments[key] = list(results)
        if self.path is not None:
            games = [[r.game_index, r.meeting_index, r.deal_set, r.rotation, r.seats, r.totals,
                      r.places] for r in results]
            with self.path.open("a", encoding="utf-8") as out:
                out.write(json.dumps({"key": key, "games": games}) + "\n")


def _result(row: list[Any]) -> ScoredGame:
    gi, mi, ds, rot, seats, totals, places = row
    return ScoredGame(gi, mi, ds, rot, tuple(seats), tuple(totals), tuple(places))
