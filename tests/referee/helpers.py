"""Helpers for referee tests: the raw-protocol test bot as a bot SPEC."""

from __future__ import annotations

import sys
from pathlib import Path

RAWBOT = Path(__file__).with_name("rawbot.py")


def rawbot(mode: str, capture: Path | None = None) -> str:
    """The shell command (a bot SPEC) that runs the raw-protocol test bot in ``mode``."""
    cmd = f"{sys.executable} {RAWBOT} {mode}"
    return f"{cmd} --capture {capture}" if capture else cmd
