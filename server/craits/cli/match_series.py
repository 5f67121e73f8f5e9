"""``craits match --games N``: N games between the same bots, every deal from every seat, and
the score the way cutechess prints it (W-L-D, then the Elo difference with its interval)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from craits.dealkey import DealKey
from craits.engine import Rules
from craits.hosting.launcher import LaunchError
from craits.hosting.match import run_games, scored, unique_names
from craits.hosting.running import NotConnected
from craits.ratings.match_score import MatchScore, match_score, score_lines
from craits.ratings.results import ScoredGame
from craits.referee import bridge
from craits.referee.bridge import DEFAULT_HOST
from craits.referee.game import GameSpec, PlayedGame
from craits.referee.policy import FailurePolicy, TimeControl

from .botlogs import BotLogs
from .common import UsageError, print_json, sandbox_limits
from .results import result_to_dict


def schedule(bots: int, games: int, key: DealKey, rules: Rules, time_control: TimeControl,
             policy: FailurePolicy) -> list[tuple[GameSpec, list[int]]]:
    """Deal set d is dealt from the run key's seed for d and played once in each rotation of the
    seats, so every bot holds every seat's cards of every deal (``games`` is a multiple of
    ``bots``); game ids are the key's opaque ones."""
    plan = []
    for index in range(games):
        deal_set, rotation = divmod(index, bots)
        order = [(seat + rotation) % bots for seat in range(bots)]
        spec = GameSpec(key.game_id("match", deal_set, rotation), rules,
                        key.seed("match", deal_set), time_control, policy)
        plan.append((spec, order))
    return plan


def summary_lines(games: list[ScoredGame], names: list[str]) -> list[str]:
    """Each bot's total over the games, then the first bot's score against each other."""
    lines = [f"Total after {len(games)} games (points: lower is better):"]
    for name in names:
        mine = [g for g in games if name in g.seats]
        points = sum(g.totals[g.seats.index(name)] for g in mine)
        wins = sum(g.places[g.seats.index(name)] == 1 for g in mine)
        lines.append(f"  {name}: {points} points, {wins} wins in {len(mine)} games")
    for other in names[1:]:
        lines += score_lines(match_score(games, names[0], other))
    return lines


def play_logged(
    args: argparse.Namespace, games: Sequence[tuple[GameSpec, Sequence[int]]],
    on_result: Callable[[PlayedGame], None],
) -> list[PlayedGame] | None:
    """Play ``games`` (each a spec and its seating) between ``args.bots``, sandboxed with
    ``--sandbox``; the bots' logs are kept, and their place said, when a game had a fault or a
    bot never connected, which returns None after saying why on stderr."""
    with BotLogs(args.log_dir, "match") as logs:
        try:
            results = bridge.run(run_games, args.bots, games, logs.path, DEFAULT_HOST,
                                 on_result, sandbox_limits(args))
        except LaunchError as exc:
            raise UsageError(str(exc)) from None
        except NotConnected as exc:
            print(f"craits: {exc} (bot logs: {logs.keep()})", file=sys.stderr)
            return None
        if any(r.faults for r in results):
            print(f"craits: bot logs: {logs.keep()}", file=sys.stderr)
    return results


def run_series(args: argparse.Namespace, key: DealKey, rules: Rules,
               time_control: TimeControl, policy: FailurePolicy) -> int:
    """Play the series, say each game on stderr as it ends, print the scores."""
    bots = len(args.bots)
    if args.games % bots:
        raise UsageError(f"--games {args.games}: give a multiple of {bots} (the number of bots),"
                         " so that each deal is played once from every seat")
    plan = schedule(bots, args.games, key, rules, time_control, policy)
    results = play_logged(args, plan, (lambda r: None) if args.json else _say_game)
    if results is None:
        return 1
    names = unique_names(args.bots)  # as the games were played: seat order of rotation 0
    if args.json:
        games = scored(results, bots)
        scores = [match_score(games, names[0], other) for other in names[1:]]
        print_json({"games": [result_to_dict(r) for r in results],
                    "scores": [_score_dict(m) for m in scores]})
    else:
        print("\n".join(summary_lines(scored(results, bots), names)))
    return 0


def _say_game(r: PlayedGame) -> None:
    ranked = sorted(range(len(r.names)), key=lambda i: (r.places[i], i))
    places = ", ".join(f"{r.names[i]} {r.totals[i]}" for i in ranked)
    print(f"game {r.spec.game_id}: {places}", file=sys.stderr, flush=True)


def _score_dict(m: MatchScore) -> dict[str, Any]:
    """The score as JSON, deciding as the text does: ``elo_low``/``elo_high`` are null where the
    text prints no bound, ``enough`` says whether there is a two-sided interval and
    ``interval_note`` why not (or how it was made)."""
    return {"bot": m.a, "opponent": m.b, "wins": m.record.wins, "losses": m.record.losses,
            "draws": m.record.draws, "games": m.record.games, "score": m.score,
            "deal_sets": m.deal_sets, "elo": m.elo, "elo_low": m.low, "elo_high": m.high,
            "enough": m.rating.enough, "interval_note": m.rating.note}
