"""Command-line options for time control and the failure policy, shared by several commands."""

from __future__ import annotations

import argparse
from typing import Final

from craits.referee.policy import FailurePolicy, TimeControl

from .common import UsageError, int_range

UINT32_MAX: Final = 2**32 - 1
"""The wire carries these numbers as uint32 (``move_ms``, ``bank_ms``, ``retries_left``,
``strikes`` in proto/craits/v1/referee.proto): a bigger one fails when the referee sends it."""
move_ms: Final = int_range(1, UINT32_MAX)
"""``type=`` of a per-decision limit in milliseconds."""
count_or_ms: Final = int_range(0, UINT32_MAX)
"""``type=`` of a time bank, a grace period or a number of retries."""


def add_time_options(parser: argparse.ArgumentParser) -> None:
    """``--move-ms``, ``--bank-ms``, ``--max-retries``, ``--max-strikes``, ``--grace-ms``.

    Each is range-checked as it is read, so a bad value is an error naming its option.
    """
    group = parser.add_argument_group("time control and failure policy")
    group.add_argument("--move-ms", type=move_ms, default=1000, help="limit per decision (1000)")
    group.add_argument("--bank-ms", type=count_or_ms, default=10000,
                       help="time bank per game (10000)")
    group.add_argument("--max-retries", type=count_or_ms, default=2,
                       help="bad replies forgiven per decision before a strike (2)")
    group.add_argument("--max-strikes", type=int_range(1, UINT32_MAX), default=3,
                       help="strikes before forfeit (3)")
    group.add_argument("--grace-ms", type=count_or_ms, default=5000,
                       help="how long a seat may be away in one game, all its disconnections "
                            "together, before it forfeits (5000)")


def time_from_args(args: argparse.Namespace) -> tuple[TimeControl, FailurePolicy]:
    """The time control and policy the options describe, or a ``UsageError``."""
    try:
        return (
            TimeControl(args.move_ms, args.bank_ms),
            FailurePolicy(args.max_retries, args.max_strikes, args.grace_ms),
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
