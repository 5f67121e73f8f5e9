"""One game between bot processes over real gRPC: what ``craits match`` runs."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from craits.ratings.results import ScoredGame
from craits.referee.bridge import DEFAULT_HOST
from craits.referee.game import GameSpec, PlayedGame, play_game

from .launcher import display_name
from .running import connect_all, running_bots
from .sandbox import SandboxLimits

CONNECT_TIMEOUT_S = 15.0


def scored(results: Sequence[PlayedGame], seatings: int) -> list[ScoredGame]:
    """The games as the statistics read them: ``seatings`` games in a row share a deal
    (``craits match``'s series; 1 for ``craits serve``'s games, each dealt its own)."""
    return [ScoredGame(i, 0, i // seatings, i % seatings, r.names, r.totals, r.places,
                       r.strikes, r.forfeited) for i, r in enumerate(results)]


def unique_names(specs: Sequence[str]) -> list[str]:
    """Display names for the specs, numbered where the same bot plays twice."""
    names = [display_name(s) for s in specs]
    seen: dict[str, int] = {}
    out = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        out.append(n if names.count(n) == 1 else f"{n}#{seen[n]}")
    return out


async def run_match(
    specs: Sequence[str], spec: GameSpec, log_dir: Path | None = None,
    host: str = DEFAULT_HOST, limits: SandboxLimits | None = None,
) -> PlayedGame:
    """Start a referee, launch one process per SPEC (each in a sandbox under ``limits`` when
    given), play one game with the bots seated in SPEC order, stop everything.

    Raises ``NotConnected`` (saying why) when a bot never connects, and ``LaunchError`` when one
    cannot be started at all.
    """
    (result,) = await run_games(specs, [(spec, range(len(specs)))], log_dir, host,
                                limits=limits)
    return result


async def run_games(
    specs: Sequence[str], games: Sequence[tuple[GameSpec, Sequence[int]]],
    log_dir: Path | None = None, host: str = DEFAULT_HOST,
    on_result: Callable[[PlayedGame], None] = lambda result: None,
    limits: SandboxLimits | None = None,
) -> list[PlayedGame]:
    """Like ``run_match``, for several games in a row with the bots launched once: each game is
    a spec and its seating (``order[s]``, the index into ``specs`` of the bot at seat s).
    ``on_result`` hears of each game as it ends."""
    logs = log_dir or Path(tempfile.mkdtemp(prefix="craits-match-"))
    results = []
    async with running_bots(specs, unique_names(specs), logs, host, limits) as running:
        await connect_all(running, CONNECT_TIMEOUT_S)
        for spec, order in games:
            seats = [running.hub.seat_for(running.bots[i].entry) for i in order]
            results.append(await play_game(spec, seats))
            on_result(results[-1])
    return results
