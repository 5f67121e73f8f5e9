"""``craits simulate``: play many random-legal games in process and summarise them.

Useful to check that a rules configuration plays out (no endless hands, sane scores), to
produce game records for tools, and as a quick speed check of the engine.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections.abc import Callable
from typing import IO, Any

from craits.engine import Rules
from craits.engine.rules_changes import rules_summary
from craits.engine.state import MAX_PLAYERS, MIN_PLAYERS
from craits.simulate import Playout, Summary, run_random_games

from .common import UsageError, add_rules_options, int_range, print_json, rules_from_args

PROGRESS_INTERVAL = 0.2
"""Seconds between progress updates: often enough to look alive, rarely enough to cost nothing."""


def register(subparsers: Any) -> None:
    """Add ``craits simulate``."""
    parser = subparsers.add_parser(
        "simulate", help="play random-legal games in process and summarise them",
        description="Play random-legal games in process (game i uses seed S+i) and print a "
        "summary: speed, mean score per seat, hands ended by the safety cap. Speeds count the "
        "time spent playing only; writing --record is in the wall-clock seconds.",
    )
    parser.add_argument("--players", type=int_range(MIN_PLAYERS, MAX_PLAYERS), default=4,
                        metavar="N", help=f"{MIN_PLAYERS} to {MAX_PLAYERS} (default 4)")
    parser.add_argument("--games", type=int_range(1), default=100, metavar="G",
                        help="default 100")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="base seed (default 0)")
    add_rules_options(parser)
    parser.add_argument(
        "--record", metavar="FILE.jsonl",
        help="write every game as one JSON line: its record (moves, events) and outcome",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Play, report; exit status 1 if the record cannot be written mid-run."""
    rules = rules_from_args(args)
    try:
        summary, wall = play(args, rules)
    except BrokenPipeError:  # a record read through a pipe whose reader left: main's to handle
        raise
    except OSError as exc:  # writing the record: a full disk, a device that refuses writes
        print(f"craits: error: cannot write record file {args.record!r}: {exc.strerror or exc}",
              file=sys.stderr)
        return 1
    report = summary_dict(summary, rules, args, wall)
    if args.json:
        print_json(report)
    else:
        print_summary(report, rules)
    return 0


def play(args: argparse.Namespace, rules: Rules) -> tuple[Summary, float]:
    """Play the games, writing the record if asked; the summary and the wall-clock seconds."""
    with open_record(args.record) as record:
        progress = Progress(args.games) if sys.stderr.isatty() else None
        on_game = game_callback(record, progress)
        start = time.perf_counter()
        summary = run_random_games(
            rules, args.players, args.games, args.seed, on_game, keep_moves=record is not None
        )
        wall = time.perf_counter() - start
        if progress is not None:
            progress.clear()
    return summary, wall


def open_record(path: str | None) -> IO[str] | contextlib.nullcontext[None]:
    """The record file opened for writing, or a do-nothing context (so ``play`` has one code
    path); a bad path is a usage error."""
    if path is None:
        return contextlib.nullcontext()
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write record file {path!r}: {exc.strerror}") from None


def game_callback(
    record: IO[str] | None, progress: Progress | None
) -> Callable[[int, Playout], None] | None:
    """What to do after each game: write its record line and/or update the progress line."""
    if record is None and progress is None:
        return None

    def on_game(index: int, playout: Playout) -> None:
        if record is not None:
            record.write(json.dumps(playout.record_dict(), separators=(",", ":")) + "\n")
        if progress is not None:
            progress.update(index + 1)

    return on_game


class Progress:
    """A self-overwriting ``games done/total`` line on stderr (only used when it is a terminal)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.last = 0.0

    def update(self, done: int) -> None:
        """Redraw, at most every ``PROGRESS_INTERVAL`` seconds, and always at the end."""
        now = time.monotonic()
        if now - self.last < PROGRESS_INTERVAL and done < self.total:
            return
        self.last = now
        sys.stderr.write(f"\rsimulating: {done}/{self.total} games ({100 * done // self.total}%)")
        sys.stderr.flush()

    def clear(self) -> None:
        """Erase the line so the summary starts on a clean terminal line."""
        sys.stderr.write("\r\033[K")
        sys.stderr.flush()


def summary_dict(
    summary: Summary, rules: Rules, args: argparse.Namespace, wall: float
) -> dict[str, Any]:
    """The summary as JSON-ready data (the ``--json`` object and the table's source)."""
    return {
        "players": args.players,
        "games": summary.games,
        "seed": args.seed,
        "rules": rules.to_dict(),
        "decisions": summary.decisions,
        "seconds": round(summary.seconds, 6),
        "wall_seconds": round(wall, 6),
        "decisions_per_second": round(summary.decisions_per_second, 1),
        "games_per_second": round(summary.games_per_second, 3),
        "mean_scores": [round(s, 3) for s in summary.mean_scores],
        "capped_hands": summary.capped_hands,
        "record": args.record,
    }


def print_summary(report: dict[str, Any], rules: Rules) -> None:
    """The summary as aligned ``label  value`` lines."""
    rows = [
        ("games", f"{report['games']} ({report['players']} players, seeds "
                  f"{report['seed']}..{report['seed'] + report['games'] - 1})"),
        ("rules", rules_summary(rules)),
        ("decisions", f"{report['decisions']}"),
        ("seconds", f"{report['seconds']:.3f} playing, {report['wall_seconds']:.3f} in all"),
        ("decisions/s", f"{report['decisions_per_second']:,.0f}"),
        ("games/s", f"{report['games_per_second']:,.2f}"),
        ("mean score", "  ".join(
            f"seat {i}: {s:.1f}" for i, s in enumerate(report["mean_scores"])
        )),
        ("capped hands", f"{report['capped_hands']}"),
    ]
    if report["record"]:
        rows.append(("record", f"{report['record']} ({report['games']} lines)"))
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")
