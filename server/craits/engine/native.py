"""Which build of the engine runs: the mypyc-compiled modules when they match the sources, else
pure Python.

The compiled build (``craits/engine/build_native.py``, run by ``.ci/setup``) puts one extension
module per compiled source in ``_native/``, beside a stamp naming the digest of the sources it
was built from. ``craits.engine`` puts that directory first on its ``__path__`` only when the
stamp matches the sources now on disk, so an edited ``state.py`` is never shadowed by a stale
build: it runs as pure Python until the next build. ``CRAITS_PURE_ENGINE=1`` forces pure Python
(CI runs the engine's tests both ways). Games are identical in both builds; only speed differs.

This module is never compiled itself: it decides what is.
"""

from __future__ import annotations

import hashlib
import os
import sysconfig
from pathlib import Path
from typing import Final

COMPILED_MODULES: Final = (
    "events", "functions", "hands", "legal", "moves", "observation", "scoring", "state",
)
"""The engine modules mypyc compiles: the ones a decision runs through (``state`` and the parts
of a game split from it by job, ``legal`` and ``hands``), and ``observation``,
which the referee and the in-process lane run before every decision (``observe`` took 7.0 µs
pure and 4.3 compiled, at 3 players). ``cards`` is left out (``Card`` subclasses ``int``, which
a native class cannot), and so are the modules a game does not run through (rules, records)."""

PACKAGE_DIR: Final = Path(__file__).resolve().parent
NATIVE_DIR: Final = PACKAGE_DIR / "_native"
STAMP: Final = NATIVE_DIR / "SOURCES"
"""Written last by a successful build: the digest of the sources it compiled."""

PURE_ENV: Final = "CRAITS_PURE_ENGINE"
"""Set to 1 (or any value but 0 or empty) to run the pure-Python engine even when compiled."""


def source_digest() -> str:
    """SHA-256 over every source of the package (the compiled modules were type-checked against
    the others, which they import) and this Python's extension suffix."""
    digest = hashlib.sha256(str(sysconfig.get_config_var("EXT_SUFFIX")).encode())
    for path in sorted(PACKAGE_DIR.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def pure_forced() -> bool:
    """Whether ``CRAITS_PURE_ENGINE`` asks for pure Python."""
    return os.environ.get(PURE_ENV, "") not in ("", "0")


def native_status() -> str | None:
    """None when the compiled build can be used, else why not (one line, for the curious)."""
    if pure_forced():
        return f"{PURE_ENV} is set"
    try:
        stamp = STAMP.read_text(encoding="utf-8").strip()
    except OSError:
        return "not built (bash .ci/build-engine)"
    if stamp != source_digest():
        return "built from other sources or for another Python (bash .ci/build-engine)"
    return None
