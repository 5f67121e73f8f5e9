"""What one validation costs the contest service's own process: CPU and wall time per version.

Validates ``--versions`` uploads (one-file bots that play the bundled greedy and random bots, in
turn) with ``craits.contest.validation.validate``, as the service's validator does, on a contest
made as the tests make one (tables of 2 to 4, default settings), and prints for each the wall
time, this process's CPU (what the service's event loop, which also serves the pages and the
matchmaker, would spend) and its children's (the validation children, reaped), then medians.
With ``--probe``, also how late a task of the same event loop that sleeps ``PROBE_S`` at a time
woke (its 99th percentile and worst, over the validation: what a page request would wait for the
loop); the probe's own wake-ups then count in this process's CPU (about 0.1 s a validation).

``--against REV`` also validates with ``server/craits/contest/validation.py`` as it was at git
revision ``REV`` (loaded beside today's, on the same contest), interleaved version by version
(ABBA order), since this machine's load moves more between runs than the variants differ.
Prints numbers, asserts nothing.
"""

from __future__ import annotations

import argparse
import importlib.util
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from craits.contest import validation  # noqa: E402  (after the root is on the path)
from craits.contest.config import load_contest_config  # noqa: E402
from craits.contest.store import ContestStore  # noqa: E402
from craits.referee.bridge import run  # noqa: E402
from tests.contest.server import make_contest  # noqa: E402
from tests.contest.uploaded import add_version, wrapped  # noqa: E402


def at_revision(rev: str) -> ModuleType:
    """``craits.contest.validation`` as it was at ``rev``, importing today's package beside it."""
    source = subprocess.run(["git", "show", f"{rev}:server/craits/contest/validation.py"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout
    path = Path(tempfile.mkdtemp()) / "validation_then.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("craits.contest.validation_then", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


PROBE_S = 0.01
"""How long the lateness probe sleeps at a time."""


async def probed(validate: Any, contest: Any, version: Any, probing: bool
                 ) -> tuple[Any, list[float]]:
    """``validate(contest, version)``, with how late each of the probe's wake-ups was (s; none
    unless ``probing``)."""
    late: list[float] = []
    if not probing:
        return await validate(contest, version), late

    async def probe() -> None:
        while True:
            due = trio.current_time() + PROBE_S
            await trio.sleep_until(due)
            late.append(trio.current_time() - due)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(probe)
        verdict = await validate(contest, version)
        nursery.cancel_scope.cancel()
    return verdict, late


def cpu() -> tuple[float, float]:
    """This process's CPU seconds, and its reaped children's."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--versions", type=int, default=8, help="versions per variant")
    parser.add_argument("--against", metavar="REV", help="also validate as at git REV")
    parser.add_argument("--probe", action="store_true", help="also how late the loop wakes")
    args = parser.parse_args()
    variants: dict[str, ModuleType] = {"now": validation}
    if args.against:
        variants[args.against] = at_revision(args.against)
    directory = Path(tempfile.mkdtemp()) / "cup"
    make_contest(directory, "", names=("alice",))
    directory.chmod(0o755)
    store = ContestStore.open(directory / "contest.db")
    config = load_contest_config(directory)
    seen: dict[str, list[tuple[float, float, float, float, float]]] = {n: [] for n in variants}
    names = list(variants)
    for n in range(args.versions):
        kind = ("greedy", "random")[n % 2]
        for name in names if n % 2 == 0 else names[::-1]:
            module = variants[name]
            contest = module.ContestRun(directory, config, store)
            version = add_version(directory, store, 1, wrapped(kind) + f"# {name} {n}\n")
            (own0, children0), start = cpu(), time.monotonic()
            verdict, late = run(probed, module.validate, contest, version, args.probe)
            (own1, children1), wall = cpu(), time.monotonic() - start
            p99, worst = ((statistics.quantiles(late, n=100)[98] * 1e3, max(late) * 1e3)
                          if late else (0.0, 0.0))
            seen[name].append((wall, own1 - own0, children1 - children0, p99, worst))
            print(f"{name:>10} {kind:7} passed={verdict.passed} wall {wall:5.2f} s, "
                  f"this process CPU {own1 - own0:6.3f} s, children {children1 - children0:5.2f}"
                  " s" + (f", loop late p99 {p99:5.1f} ms, worst {worst:5.1f} ms" if late
                          else ""), flush=True)
    for name, rows in seen.items():
        walls, owns, children, p99s, worsts = (sorted(c) for c in zip(*rows, strict=True))
        print(f"{name}: {len(rows)} validations; median wall {statistics.median(walls):.2f} s "
              f"({walls[0]:.2f}-{walls[-1]:.2f}), this process CPU "
              f"{statistics.median(owns):.3f} s ({owns[0]:.3f}-{owns[-1]:.3f}), children "
              f"{statistics.median(children):.2f} s" + (
                  f"; loop late p99 {statistics.median(p99s):.1f} ms ({p99s[0]:.1f}-"
                  f"{p99s[-1]:.1f}), worst {statistics.median(worsts):.1f} ms ({worsts[0]:.1f}-"
                  f"{worsts[-1]:.1f})" if args.probe else ""))


if __name__ == "__main__":
    main()
