"""Standings of a stored tournament as text or JSON, for ``craits tournament`` commands."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from craits.tournament.sprt import SprtResult, match_verdict
from craits.tournament.standings import Standings
from craits.tournament.store import Store, StoreError, TournamentInfo

from .common import UsageError, print_json


def stored(store: Store, tid: str, db: Path) -> TournamentInfo:
    """The tournament ``tid`` names, or a usage error pointing at ``craits tournament list``."""
    try:
        return store.tournament(tid)
    except StoreError as exc:
        raise UsageError(f"{exc} in {db} (see `craits tournament list`)") from None


def print_standings(store: Store, tid: str, as_json: bool) -> None:
    """Tournament ``tid``'s standings on stdout as a table or one JSON object, with the SPRT
    verdict of a match: what ``run``, ``resume`` and ``show`` end with."""
    standings = store.standings(tid)
    config = store.config(tid)
    verdict = match_verdict(config, store.results(tid)) if config.sprt is not None else None
    if as_json:
        extra = {"sprt": dataclasses.asdict(verdict)} if verdict else {}
        print_json({"tournament": tid, **standings.to_dict(), **extra})
        return
    print(format_standings(standings))
    if verdict is not None:
        tested = (config.gauntlet, "the field") if config.gauntlet else config.bot_names[:2]
        print(format_verdict(verdict, *tested))


def format_verdict(v: SprtResult, a: str, b: str) -> str:
    """One line on the A-vs-B sequential test."""
    said = {"H1": f"accept H1: {a} is stronger than {b}",
            "H0": f"accept H0: {a} is not stronger than {b}", "continue": "undecided so far"}
    return (f"SPRT {a} vs {b}: {said[v.decision]}; LLR {v.llr:+.2f} in [{v.lower:+.2f}, "
            f"{v.upper:+.2f}] after {v.deal_sets} deal sets ({v.wins}-{v.draws}-{v.losses}), "
            f"{v.elo:+.0f} Elo")


def format_standings(s: Standings) -> str:
    """The final table: rank, bot, rating ± CI, games, mean points, wins, strikes."""
    pct = round(s.confidence * 100)
    lines = [
        f"{s.games} games in {s.deal_sets} deal sets; ratings: Bradley-Terry on the Elo scale, "
        f"{s.interval_note}",
        f"{'rank':>4}  {'bot':<20} {'rating':>7} {f'{pct}% interval':>17} {'games':>6} "
        f"{'mean pts':>9} {'wins':>5} {'strikes':>7}",
    ]
    for r in s.rows:
        interval = r.interval
        lines.append(
            f"{r.rank:>4}  {r.bot:<20} {r.rating:>+7.0f} {interval:>17} {r.stats.games:>6} "
            f"{r.stats.mean_points:>9.1f} {r.stats.wins:>5} {r.stats.strikes:>7}"
        )
    return "\n".join(lines)
