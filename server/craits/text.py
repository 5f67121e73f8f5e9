"""Text that bots wrote, made safe to show: no control characters reach a terminal or a page.

A bot controls its stderr (the last line becomes a crash reason), its reply text and anything
else it sends; printed as it is, an escape sequence in it could rewrite the organiser's
terminal (move the cursor, change the title, hide lines) and a bidirectional override could
make a report say something it does not. ``printable`` is applied where such text leaves the
referee: when the hub records why a bot died, when a fault is logged, and when the HTML report
escapes a value.
"""

from __future__ import annotations

import re
from typing import Final

_UNSAFE: Final = re.compile(
    "[\x00-\x1f\x7f-\x9f"            # C0 and C1 controls, DEL (ESC starts terminal sequences)
    "\u061c\u200e\u200f"              # bidirectional marks
    "\u202a-\u202e\u2066-\u2069]"     # bidirectional embeddings, overrides and isolates
)


def printable(text: str) -> str:
    """``text`` with every control character written as a visible escape (``\\x1b``,
    ``\\u202e``), so that what a bot wrote is shown, never obeyed; one line, whatever it held."""
    return _UNSAFE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
