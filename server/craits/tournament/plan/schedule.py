"""The schedule: every game of a tournament as a self-contained job, derived from the config.

A *meeting* is one subset of ``table_size`` bots. Each meeting is played as ``deal_sets`` *deal
sets*; a deal set is one engine seed replayed under every seating (the k cyclic rotations, or all
k! permutations), so each bot plays each seat position's cards once and card luck cancels inside
the deal set. This works because the engine's deal depends only on (rules, players, seed): the
first dealer and every hand's cards are fixed by the seed, while the seating decides which bot
holds them.

Everything is a pure function of the configuration and the tournament's secret ``DealKey``: seeds
are keyed hashes of the meeting's bot names and the deal-set index (and the seating, for
independent deals), so they are stable across Python versions and machines, a meeting's deals do
not change when other bots are added to the field, and nobody without the key can predict them.
Game ids come from the same key and the game's index: opaque names that say nothing about a deal.
A job carries everything needed to play its game elsewhere (``Job.to_dict``).

Jobs are ordered deal set first, then meeting, then seating: early jobs already cover every
meeting (live ratings stay balanced), and a match can stop after any complete deal set. Runs with
sandboxed bots at duplicate deals are *claimed* seating-major instead (``seating_major``).
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from craits.dealkey import DealKey, run_key
from craits.engine import Rules
from craits.referee.policy import FailurePolicy, TimeControl

from .config import BotSpec, TournamentConfig, bot_from_dict, section_dict


@dataclass(frozen=True, slots=True)
class Job:
    """One game to play: who sits where, with which deal, under which rules and clocks."""

    tournament_id: str
    game_index: int
    """Position in the schedule (0-based); unique within the tournament."""
    meeting_index: int
    meeting: tuple[str, ...]
    """The bots of the meeting, in configuration order."""
    deal_set: int
    rotation: int
    """Which seating of the deal set: a cyclic rotation, or an index into all k! permutations."""
    seats: tuple[str, ...]
    """The bot at each seat (seat 0 first)."""
    seed: int
    """The engine seed; equal for every seating of one deal set of one meeting."""
    rules_json: str
    launch: tuple[BotSpec, ...]
    """How to reach the bot at each seat (aligned with ``seats``)."""
    time: TimeControl
    failure: FailurePolicy
    game_id: str = ""
    """The opaque id bots see ("" in jobs stored before ids were keyed: see ``stored_game_id``)."""

    @property
    def deal_set_key(self) -> tuple[int, int]:
        """(meeting, deal set): the unit whose games share their cards."""
        return (self.meeting_index, self.deal_set)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, enough to play the game on another machine."""
        return {
            "tournament_id": self.tournament_id,
            "game_index": self.game_index,
            "meeting_index": self.meeting_index,
            "meeting": list(self.meeting),
            "deal_set": self.deal_set,
            "rotation": self.rotation,
            "seats": list(self.seats),
            "seed": self.seed,
            "rules": json.loads(self.rules_json),
            "launch": [b.to_dict() for b in self.launch],
            "time": section_dict(self.time),
            "failure": section_dict(self.failure),
            "game_id": self.game_id,
        }

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Job:
        """Inverse of ``to_dict``."""
        return Job(
            tournament_id=data["tournament_id"],
            game_index=data["game_index"],
            meeting_index=data["meeting_index"],
            meeting=tuple(data["meeting"]),
            deal_set=data["deal_set"],
            rotation=data["rotation"],
            seats=tuple(data["seats"]),
            seed=data["seed"],
            rules_json=Rules.from_dict(data["rules"]).to_json(),
            launch=tuple(bot_from_dict(b) for b in data["launch"]),
            time=TimeControl(**data["time"]),
            failure=FailurePolicy(**data["failure"]),
            game_id=data.get("game_id", ""),
        )


def build_schedule(
    config: TournamentConfig, tournament_id: str, key: DealKey | None = None
) -> list[Job]:
    """Every game of the tournament, in play order (see the module docstring); ``key`` None
    means the config's own (a fresh secret one each call when it has no seed)."""
    return list(iter_jobs(config, tournament_id, key))


def iter_jobs(
    config: TournamentConfig, tournament_id: str, key: DealKey | None = None
) -> Iterator[Job]:
    """``build_schedule`` lazily."""
    key = key or run_key(config.seed)
    meetings = list(iter_meetings(config))
    rules_json = config.rules.to_json()
    index = 0
    for deal_set in range(config.deal_sets):
        seatings = seat_orders(config.table_size, config.seatings, deal_set)
        for m, meeting in enumerate(meetings):
            independent = config.independent(meeting)
            for rotation, order in enumerate(seatings):
                seats = tuple(meeting[i] for i in order)
                yield Job(
                    tournament_id=tournament_id, game_index=index, meeting_index=m,
                    meeting=meeting, deal_set=deal_set, rotation=rotation, seats=seats,
                    seed=deal_seed(key, meeting, deal_set, rotation if independent else None),
                    rules_json=rules_json,
                    launch=tuple(config.bot(name) for name in seats),
                    time=config.time, failure=config.failure,
                    game_id=key.game_id("tournament-game", index),
                )
                index += 1


UNSAFE_INTERLEAVED_ENV = "_CRAITS_UNSAFE_INTERLEAVED_SEATINGS"
"""A test hook, not a setting: ``=1`` in the environment of a run (and its workers) plays the
seatings of a deal set interleaved as before seating-major order, so that the tests' control runs
can show the channel between a bot's processes that seating-major order closes
(``tests/security/test_seating_order.py``). Never set it in a contest."""


def seating_major(config: TournamentConfig) -> bool:
    """Whether the run plays seating-major: every job of seating 0 (of every meeting and deal
    set) before any of seating 1, and so on, with every process of every sandboxed bot ended
    between two seatings (``run.local_tables``). For duplicate deals with sandboxed bots: then
    no process of a bot, and no process alive at the same time as it, has seen another seating
    of a deal it plays, so no channel between processes that run at once on one machine (shared
    kernel counters, CPU timing; ``docs/security.md``) can carry an opponent's cards. The claim
    order follows it (``Store.claim_next``), and so does a resumed run. The game indices, and
    hence the stored schedule, do not change."""
    if os.environ.get(UNSAFE_INTERLEAVED_ENV) == "1":
        return False
    return config.deals == "duplicate" and any(config.isolated(n) for n in config.bot_names)


def phase_of(config: TournamentConfig, job: Job) -> int | None:
    """The seating a job's bots play it in under ``seating_major`` order, else None (no
    phases: its bots' processes live for the whole run)."""
    return job.rotation if seating_major(config) else None


def iter_meetings(config: TournamentConfig) -> Iterator[tuple[str, ...]]:
    """The bot subsets that meet, in ``itertools.combinations`` order of the configured bots.

    Round-robin and match: every subset of ``table_size``; gauntlet: only those holding the
    gauntlet bot.
    """
    for meeting in itertools.combinations(config.bot_names, config.table_size):
        if config.mode != "gauntlet" or config.gauntlet in meeting:
            yield meeting


def seat_orders(table_size: int, seatings: str, deal_set: int = 0) -> list[tuple[int, ...]]:
    """For each seating of deal set ``deal_set``, which meeting member sits at each seat.

    ``rotations``: seating r puts member (s + r) mod k at seat s, so over the k seatings every
    member holds every seat once. Rotations keep the members' cyclic order, so at tables of 3 or
    more the member listed first would always play just before the second, never after; odd
    deal sets therefore turn the other way round (member (r − s) mod k at seat s), so who plays
    after whom is balanced too over each pair of deal sets. With 2 seats both ways are the same.
    ``all``: every permutation, identity first (balanced already).
    """
    k = table_size
    if seatings == "all":
        return list(itertools.permutations(range(k)))
    if deal_set % 2:
        return [tuple((r - s) % k for s in range(k)) for r in range(k)]
    return [tuple((s + r) % k for s in range(k)) for r in range(k)]


def deal_seed(
    key: DealKey, meeting: tuple[str, ...], deal_set: int, seating: int | None = None
) -> int:
    """The engine seed of one deal set of one meeting (of one seating of it, for independent
    deals): 63 bits of the tournament key's HMAC, stable everywhere.

    The meeting enters as its sorted bot names, so the seed names *who* meets, not where the
    meeting falls in the schedule.
    """
    if seating is None:
        return key.seed("tournament-deal", sorted(meeting), deal_set)
    return key.seed("tournament-deal", sorted(meeting), deal_set, seating)


def stored_game_id(job: Job, tournament_seed: int | None) -> str:
    """The id bots see for a job: its keyed id, or for a job stored before ids were keyed the
    id it had then (``s<seed>-g<index>``), so that resuming an old tournament changes nothing."""
    return job.game_id or f"s{tournament_seed}-g{job.game_index}"
