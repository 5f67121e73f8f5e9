"""Command-line options for time control and the failure policy, shared by several commands."""

from __future__ import annotations

import argparse
from typing import Final

from craits.referee.policy import LIMITS, FailurePolicy, TimeControl

from .common import UsageError, int_range

_TYPES: Final = {name: int_range(*bounds) for name, bounds in LIMITS.items()}
"""``type=`` of each option: the same ranges as tournament files (``policy.LIMITS``)."""
move_ms: Final = _TYPES["move_ms"]
"""``type=`` of a per-decision limit in milliseconds (also ``craits check --move-ms``)."""


def add_time_options(parser: argparse.ArgumentParser) -> None:
    """``--move-ms``, ``--bank-ms``, ``--max-retries``, ``--max-strikes``, ``--grace-ms``.

    Each is range-checked as it is read, so a bad value is an error naming its option.
    """
    group = parser.add_argument_group("time control and failure policy")
    group.add_argument("--move-ms", type=move_ms, default=1000,
                       help="limit per decision (1000)")
    group.add_argument("--bank-ms", type=_TYPES["bank_ms"], default=10000,
                       help="time bank per game (10000)")
    group.add_argument("--max-retries", type=_TYPES["max_retries"], default=2,
                       help="bad replies forgiven per decision before a strike (2)")
    group.add_argument("--max-strikes", type=_TYPES["max_strikes"], default=3,
                       help="strikes before forfeit (3)")
    group.add_argument("--grace-ms", type=_TYPES["grace_ms"], default=5000,
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
