"""Command-line options for time control and the failure policy, shared by several commands."""

from __future__ import annotations

import argparse

from craits.referee.policy import FailurePolicy, TimeControl

from .common import UsageError


def add_time_options(parser: argparse.ArgumentParser) -> None:
    """``--move-ms``, ``--bank-ms``, ``--max-retries``, ``--max-strikes``, ``--grace-ms``."""
    group = parser.add_argument_group("time control and failure policy")
    group.add_argument("--move-ms", type=int, default=1000, help="limit per decision (1000)")
    group.add_argument("--bank-ms", type=int, default=10000, help="time bank per game (10000)")
    group.add_argument("--max-retries", type=int, default=2,
                       help="bad replies forgiven per decision before a strike (2)")
    group.add_argument("--max-strikes", type=int, default=3, help="strikes before forfeit (3)")
    group.add_argument("--grace-ms", type=int, default=5000,
                       help="how long a disconnected bot may take to reconnect (5000)")


def time_from_args(args: argparse.Namespace) -> tuple[TimeControl, FailurePolicy]:
    """The time control and policy the options describe, or a ``UsageError``."""
    try:
        return (
            TimeControl(args.move_ms, args.bank_ms),
            FailurePolicy(args.max_retries, args.max_strikes, args.grace_ms),
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
