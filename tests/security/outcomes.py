"""What a finished tournament recorded, read from its database: the security tests compare a
run with attackers against one without, game by game."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path


def game_outcomes(db: Path) -> list[tuple[str, str, str]]:
    """(seats, totals, places) of every recorded game, in schedule order."""
    with closing(sqlite3.connect(db)) as con:
        rows: list[tuple[str, str, str]] = con.execute(
            "SELECT g.seats, g.totals, g.places FROM games g JOIN jobs j ON j.id = g.job_id"
            " ORDER BY j.game_index").fetchall()
    return rows
