"""A bot's manifest, ``craits-bot.toml`` at the top of its archive: how to start it.

Two keys, both required::

    command = "python bot.py"     # run in the bot's own directory, as a shell would split it
    runtime = "python"            # python, node or native: what the sandbox must provide

A single source file needs no manifest: ``bot.py`` gets ``python bot.py`` and ``bot.js`` gets
``node bot.js``, written into the stored version as a manifest like any other, so every version
on disk is started the same way.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from craits.tournament.plan.tomlreader import ConfigError, TableReader, parse_toml

MANIFEST_NAME: Final = "craits-bot.toml"
RUNTIMES: Final = ("python", "node", "native")
"""``python``: CPython with the SDK (``craits_sdk``) importable; ``node``: Node.js; ``native``: a
program built for this machine (Linux x86-64), started directly."""
MAX_MANIFEST_BYTES: Final = 16 * 1024

SINGLE_FILE_RUNTIMES: Final = {".py": ("python", "python"), ".js": ("node", "node")}
"""A single uploaded source file's suffix: its runtime and the interpreter that runs it."""


class ManifestError(ValueError):
    """The manifest is missing or wrong; the message says what to write instead."""


@dataclass(frozen=True, slots=True)
class Manifest:
    """How a version is started."""

    command: str
    runtime: str

    def to_toml(self) -> str:
        """The manifest as a file (JSON strings are valid TOML basic strings)."""
        return (f"command = {json.dumps(self.command)}\n"
                f"runtime = {json.dumps(self.runtime)}\n")


def manifest_for_single_file(name: str) -> Manifest:
    """The manifest of a single uploaded source file called ``name``."""
    suffix = Path(name).suffix
    runtime, interpreter = SINGLE_FILE_RUNTIMES[suffix]
    return Manifest(command=shlex.join([interpreter, name]), runtime=runtime)


def read_manifest(root: Path) -> Manifest:
    """The manifest at the top of the unpacked tree ``root``."""
    path = root / MANIFEST_NAME
    if path.is_symlink() or not path.is_file():
        raise ManifestError(
            f"the archive has no {MANIFEST_NAME} at its top level; add one with two lines, "
            'e.g. command = "python bot.py" and runtime = "python" (docs/contests.md)')
    if path.stat().st_size > MAX_MANIFEST_BYTES:
        raise ManifestError(f"{MANIFEST_NAME} is larger than {MAX_MANIFEST_BYTES} bytes")
    try:
        text = path.read_text(encoding="utf-8")
        table = TableReader(parse_toml(text, MANIFEST_NAME), "")
        command = table.text("command", "", nonempty=True, required=True)
        runtime = table.choice("runtime", "", RUNTIMES)
        if not runtime:
            table.fail("runtime", f"missing; it must be one of {', '.join(RUNTIMES)}")
        table.finish()
    except UnicodeDecodeError:
        raise ManifestError(f"{MANIFEST_NAME} is not UTF-8 text") from None
    except ConfigError as exc:
        message = str(exc)
        prefix = "" if message.startswith(MANIFEST_NAME) else f"{MANIFEST_NAME}: "
        raise ManifestError(prefix + message) from None
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise ManifestError(f"{MANIFEST_NAME}: command: cannot split it into words: {exc}"
                            ) from None
    if not words:
        raise ManifestError(f"{MANIFEST_NAME}: command: must name a program")
    return Manifest(command=command, runtime=runtime)
