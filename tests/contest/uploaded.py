"""Bots as contestants upload them: the bundled ones wrapped in one file, and broken ones."""

from __future__ import annotations

import hashlib
from pathlib import Path

from craits.contest.store import ContestStore, NewVersion, Version

MANIFEST = 'command = "python bot.py"\nruntime = "python"\n'

BUNDLED = {"greedy": ("greedy", "GreedyBot"), "lowcard": ("lowcard", "LowCardBot"),
           "random": ("random", "RandomBot")}


def wrapped(name: str) -> str:
    """A one-file upload that plays bundled bot ``name``."""
    module, cls = BUNDLED[name]
    return f"from craits_bots.{module} import {cls}\nfrom craits_sdk import run\n\nrun({cls}())\n"


CRASHES_ON_FIRST_MOVE = (
    "import os, sys\nfrom craits_sdk import Bot, run\n\n\nclass Crash(Bot):\n"
    "    def decide(self, view):\n"
    "        print('my first move is broken', file=sys.stderr, flush=True)\n"
    "        os._exit(7)\n\n\nrun(Crash())\n")
"""Dies at its first decision (an exception in ``decide`` would not do: the SDK answers with a
legal move of its own then)."""

NEVER_CONNECTS = "import sys\nprint('no referee for me', file=sys.stderr)\nsys.exit(3)\n"


def bot_directory(root: Path, source: str) -> Path:
    """A directory with ``bot.py`` and the manifest, as an upload unpacks it."""
    root.mkdir(parents=True, exist_ok=True)
    root.chmod(0o755)
    for name, text in (("bot.py", source), ("craits-bot.toml", MANIFEST)):
        (root / name).write_text(text)
        (root / name).chmod(0o644)
    return root


def add_version(contest: Path, store: ContestStore, contestant_id: int, source: str,
                now: float = 0.0) -> Version:
    """Store ``source`` as a new version of the contestant, files first, then the row."""
    digest = hashlib.sha256(source.encode()).hexdigest()
    (contest / "bots").mkdir(exist_ok=True)
    (contest / "bots").chmod(0o755)
    bot_directory(contest / "bots" / digest, source)
    version, _ = store.record_upload(contestant_id, NewVersion(digest, "bot.py",
                                                               "python bot.py", "python", 2,
                                                               len(source)), now)
    return version
