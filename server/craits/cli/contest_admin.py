"""``craits contest phase``, ``export`` and ``organiser-token``: the organiser's commands on a
contest directory (the store directly, so they work whether or not it is being served)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from craits.contest.config import load_contest_config
from craits.contest.organiser import new_organiser_token
from craits.contest.phases import SETTABLE, PhaseError, finals_of, phase_now, set_phase
from craits.contest.results import export_results
from craits.contest.store import DB_NAME, ContestStore, StoreError
from craits.tournament.plan.tomlreader import ConfigError

from .common import UsageError


def register_admin(sub: Any) -> None:
    """Add ``phase``, ``export`` and ``organiser-token`` to ``craits contest``."""
    phase = sub.add_parser(
        "phase", help="show or move the contest's phase (open, frozen, finals)",
        description="With no PHASE, print the phase. open / frozen: set it, whatever the dates "
        "of [phases] say; dates: follow the dates again; finals: start the finals now (the "
        "board's top [phases] finalists; cannot be undone). Works while the contest is "
        "served: the service sees it at its next step.")
    phase.add_argument("dir", type=Path, metavar="DIR")
    phase.add_argument("phase", nargs="?", choices=SETTABLE, metavar="PHASE",
                       help=", ".join(SETTABLE))
    phase.set_defaults(func=_phase)

    export = sub.add_parser(
        "export", help="write the results as results.json, results.csv and results.html",
        description="Write the board (the finals' board once they started) with the phase "
        "and the finals' terms to OUT/results.json, .csv and .html. Until the phase is "
        "done the files say they are not final.")
    export.add_argument("dir", type=Path, metavar="DIR")
    export.add_argument("--out", type=Path, required=True, help="the directory to write to")
    export.set_defaults(func=_export)

    organiser = sub.add_parser(
        "organiser-token", help="make the organiser's token for the pages (printed once)",
        description="Print a new organiser's token, once: signed in with it on the contest's "
        "pages (/signin), you see every version's logs, faults and reasons and the live games "
        "with every hand. The contest keeps only its SHA-256 digest; running this again "
        "replaces the token (the old one stops working at once, also while served).")
    organiser.add_argument("dir", type=Path, metavar="DIR")
    organiser.set_defaults(func=_organiser_token)


def _open(directory: Path) -> tuple[Any, ContestStore]:
    try:
        config = load_contest_config(directory)
        if not (directory / DB_NAME).exists():
            raise UsageError(f"{directory / DB_NAME}: no store yet (add contestants or serve "
                             "the contest first)")
        return config, ContestStore.open(directory / DB_NAME)
    except (ConfigError, StoreError) as exc:
        raise UsageError(str(exc)) from None


def _phase(args: argparse.Namespace) -> int:
    config, store = _open(args.dir)
    try:
        now = time.time()
        if args.phase is not None:
            try:
                set_phase(config, store, args.phase, now)
            except PhaseError as exc:
                raise UsageError(str(exc)) from None
        print(f"{config.name}: {phase_now(config, store, now)}")
        finals = finals_of(store)
        if finals is not None:
            print(f"  finals: {len(finals.finalists)} finalists (version ids "
                  f"{', '.join(map(str, finals.finalists))}), {finals.deal_sets} deal sets "
                  "each")
    finally:
        store.close()
    return 0


def _export(args: argparse.Namespace) -> int:
    config, store = _open(args.dir)
    try:
        try:
            written = export_results(config, store, args.out, time.time())
        except OSError as exc:
            raise UsageError(f"cannot write to {args.out}: {exc.strerror or exc}") from None
        phase = phase_now(config, store, time.time())
    finally:
        store.close()
    note = "" if phase == "done" else f" (the contest is {phase}: not final results yet)"
    print(f"wrote {', '.join(map(str, written))}{note}")
    return 0


def _organiser_token(args: argparse.Namespace) -> int:
    try:
        load_contest_config(args.dir)
        store = ContestStore.open(args.dir / DB_NAME)
    except (ConfigError, StoreError) as exc:
        raise UsageError(str(exc)) from None
    try:
        token = new_organiser_token(store)
    finally:
        store.close()
    print("the organiser's token (shown only now; any earlier one no longer works):")
    print(token)
    return 0
