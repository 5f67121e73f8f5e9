"""One game between bot processes over real gRPC: what ``craits match`` runs."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

import trio

from .game import GameResult, GameSpec, play_game
from .launcher import BotProcess, display_name, launch
from .server import open_referee

CONNECT_TIMEOUT_S = 15.0


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
    specs: Sequence[str], spec: GameSpec, log_dir: Path | None = None, host: str = "127.0.0.1"
) -> GameResult:
    """Start a referee, launch one process per SPEC, play one game, stop everything."""
    logs = log_dir or Path(tempfile.mkdtemp(prefix="craits-match-"))
    async with open_referee(host) as referee, trio.open_nursery() as nursery:
        bots: list[BotProcess] = []
        try:
            for bot_spec, name in zip(specs, unique_names(specs), strict=True):
                bot = await launch(referee.hub, referee.address, bot_spec, name, logs)
                bots.append(bot)
                nursery.start_soon(bot.watch, referee.hub)
            for bot in bots:
                await referee.hub.wait_connected(bot.entry, CONNECT_TIMEOUT_S)
            seats = [referee.hub.seat_for(b.entry) for b in bots]
            return await play_game(spec, seats)
        finally:
            with trio.CancelScope(shield=True):
                for bot in bots:
                    await bot.stop()
            nursery.cancel_scope.cancel()
