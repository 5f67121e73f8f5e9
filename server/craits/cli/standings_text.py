"""Standings of a stored tournament as tables or JSON, for ``craits tournament`` commands."""

from __future__ import annotations

import dataclasses
import difflib
from pathlib import Path

from rich.console import Console
from rich.text import Text

from craits.ratings.pair_wld import pair_records
from craits.ratings.sprt import SprtResult
from craits.tournament.plan.config import TournamentConfig
from craits.tournament.plan.schedule import seat_orders
from craits.tournament.plan.verdict import match_verdict
from craits.tournament.store.database import Store, TournamentInfo

from .common import UsageError, print_json
from .tables import console, crosstable_table, sprt_line, sprt_meaning, standings_table


def stored(store: Store, given: str, db: Path) -> TournamentInfo:
    """The tournament ``given`` names (its id, or a prefix of exactly one id), or a usage
    error that says which ids were meant or where to look."""
    return store.tournament(resolve_id(store, given, db))


def resolve_id(store: Store, given: str, db: Path) -> str:
    """The one stored id equal to ``given`` or starting with it (as git takes a short hash)."""
    ids = [info.id for info in store.tournaments()]
    if given in ids:
        return given
    matches = [tid for tid in ids if given and tid.startswith(given)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise UsageError(f"tournament id {given!r} is ambiguous in {db}: it starts "
                         f"{', '.join(matches)}; give more of it")
    close = difflib.get_close_matches(given, ids, n=1)
    hint = f"did you mean {close[0]}? " if close else ""
    raise UsageError(f"no tournament {given!r} in {db} ({hint}see `craits tournament list`)")


def games_per_deal_set(config: TournamentConfig) -> int:
    """How many seatings (games) a meeting plays with one deal set."""
    return len(seat_orders(config.table_size, config.seatings))


def verdict_of(store: Store, tid: str) -> SprtResult | None:
    """The SPRT of a ``match`` (or of a gauntlet with ``[sprt]``); None for any other."""
    config = store.config(tid)
    return match_verdict(config, store.results(tid)) if config.sprt is not None else None


def print_standings(store: Store, tid: str, as_json: bool, out: Console | None = None) -> None:
    """Tournament ``tid``'s standings on stdout as tables or one JSON object, with the SPRT
    verdict of a match: what ``run``, ``resume`` and ``show`` end with."""
    standings = store.standings(tid)
    config = store.config(tid)
    verdict = verdict_of(store, tid)
    if as_json:
        extra = {"sprt": dataclasses.asdict(verdict)} if verdict else {}
        print_json({"tournament": tid, **standings.to_dict(), **extra})
        return
    out = out or console()
    out.print(standings_table(standings))
    order = [row.bot for row in standings.rows]
    if len(order) > 1:
        out.print(crosstable_table(order, pair_records(store.results(tid), order)))
    if verdict is not None:
        a, b = (config.gauntlet, "the field") if config.gauntlet else config.bot_names[:2]
        out.print(Text(sprt_line(verdict, a, b, games_per_deal_set(config))))
        out.print(Text(sprt_meaning(verdict, a, b)))
        if verdict.deal_sets != standings.deal_sets:
            out.print(Text(
                f"(the test counts {verdict.deal_sets} complete deal sets in order; the "
                f"standings count all {standings.deal_sets}, with the games that were already "
                "being played when it stopped, or are still to come)"
            ))
