"""``craits check``: run the conformance kit against one bot before it enters a contest."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from craits.check.conformance import CheckOptions, CheckResult, Report, run_checks
from craits.referee import bridge

from .botlogs import BotLogs
from .common import add_sandbox_option, bot_spec, print_json, sandbox_limits, seconds
from .timing import move_ms


def register(subparsers: Any) -> None:
    """Add ``craits check``."""
    parser = subparsers.add_parser(
        "check", help="check that a bot answers every kind of decision legally and in time",
        description="Launch the bot as its own process against a loopback referee, ask it one "
        "decision of every kind the rules have (normal play, the count, an 8's suit, a 9's "
        "switch, a 6's replay, 'one card', the dealer's upturned 8 and 9, drawing, jacks and "
        "king runs), then play one short game against random seats. A bad reply or a late one "
        "fails its check; there are no retries. Exit status 0 only if every check passes.",
    )
    parser.add_argument("spec", metavar="BOT_SPEC", type=bot_spec,
                        help="a bundled bot name (greedy, random, lowcard) or a shell command")
    parser.add_argument("--move-ms", type=move_ms, default=1000,
                        help="time allowed per decision, no bank (1000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the short game (1)")
    parser.add_argument("--connect-timeout", type=seconds, default=15.0,
                        help="seconds the bot may take to connect (15)")
    parser.add_argument("--log-dir", type=Path,
                        help="where the bot's stderr log goes (default: a new temp dir)")
    add_sandbox_option(parser)
    parser.add_argument("--verbose", action="store_true",
                        help="show each position and its legal moves")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Validate, run the checks, print the report; 0 only if all passed."""
    with BotLogs(args.log_dir, "check") as logs:
        options = CheckOptions(args.move_ms, args.seed, args.connect_timeout, logs.path,
                               sandbox_limits(args))
        report = bridge.run(run_checks, args.spec, options)
        if not report.ok:
            logs.keep()
        elif logs.temporary:
            report.stderr_log = ""  # removed with its clean temp dir
    if args.json:
        print_json(report.to_dict())
    else:
        print(format_report(report, args.verbose))
    return 0 if report.ok else 1


def format_report(report: Report, verbose: bool = False) -> str:
    """One line per check, then the stderr log when something failed, then the totals line."""
    lines = [f"checking {report.bot} ({report.move_ms} ms per decision)"]
    for check in report.checks:
        lines.append(_line(check))
        if verbose and check.about:
            lines.append(f"        faced: {check.about}")
        if verbose and check.legal:
            lines.append(f"        legal: {' | '.join(check.legal)}")
    if report.stderr_log and (verbose or report.failed):
        lines.append(f"bot stderr: {report.stderr_log}")
    lines.append(f"{report.passed} passed, {report.failed} failed")
    return "\n".join(lines)


def _line(check: CheckResult) -> str:
    mark = "PASS" if check.passed else "FAIL"
    latency = "" if check.latency_ms is None else f"{check.latency_ms:.1f} ms"
    return f"  {mark}  {check.name:<14} {latency:>10}  {check.detail}"
