"""A sandboxed bot's output as its log keeps it: the referee's lines unforgeable, no raw control
bytes.

A bot's stderr log holds the bot's text and the referee's own lines (``[craits: ...]``: why it
was ended, the CPU seconds its processes used, where its output was cut). Copied byte for byte,
a bot could write a line that reads as the referee's (``[craits: the bot's processes used 0.01
CPU seconds]`` after a month of pondering), and raw control bytes would reach whoever reads the
log: ESC starts terminal sequences that can rewrite the organiser's screen (hide lines, change
the title), and a right-to-left override makes text read backwards. So what the bot wrote is
filtered on its way in (``BotText``):

- every control character but newline and tab (C0, DEL, C1, the bidirectional marks, overrides,
  embeddings and isolates) is written as a visible escape (``\\x1b``, ``\\u202e``), as
  ``craits.text`` shows a bot's text elsewhere, and bytes that are not UTF-8 as ``\\xNN``;
- a line of the bot's that begins with ``[craits`` begins with ``\\x5b`` instead, so that only the
  referee's lines begin with ``[craits: `` (the referee starts its lines on a line of their own).

The file is then safe to ``cat`` or ``less``: a line that begins with ``[craits: `` is the
referee's, whatever the bot wrote. The cost is that a bot's log shows escapes where the bot wrote
raw bytes, and that a non-UTF-8 byte takes four characters (the output limit counts what the bot
wrote, not what the log holds).
"""

from __future__ import annotations

import codecs
import re
from typing import Final

MARK: Final = "[craits"
"""How every referee line in a bot's log begins (``[craits: ...]``)."""

_UNSAFE: Final = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f"      # C0 and C1 controls but tab and newline; DEL
    "\u061c\u200e\u200f"                # bidirectional marks
    "\u202a-\u202e\u2066-\u2069"        # bidirectional embeddings, overrides and isolates
    "\udc80-\udcff]"                    # bytes that were not UTF-8 (surrogateescape)
)
_FORGED: Final = re.compile(r"^\[(?=craits)", re.MULTILINE)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


class BotText:
    """A filter for a stream of the bot's output bytes (see the module's docstring)."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="surrogateescape")
        self._held = ""
        """The start of a line that may yet become ``[craits`` (held until it cannot)."""
        self.at_line_start = True
        """Whether what was written so far ends a line (the referee's next line needs none)."""

    def feed(self, chunk: bytes) -> bytes:
        """The log's bytes for the next ``chunk`` of the bot's output."""
        return self._filter(self._held + self._decoder.decode(chunk), final=False)

    def flush(self) -> bytes:
        """Whatever is still held (at the end of the output, or before a referee line)."""
        return self._filter(self._held + self._decoder.decode(b"", final=True), final=True)

    def _filter(self, text: str, final: bool) -> bytes:
        self._held = ""
        if not final:
            last_line = text.rpartition("\n")[2]
            starts_line = "\n" in text or self.at_line_start
            if starts_line and MARK.startswith(last_line) and last_line:
                self._held, text = last_line, text[: len(text) - len(last_line)]
        if not text:
            return b""
        # Mid-line, a placeholder first keeps ``^`` from matching where this chunk begins.
        marked = _FORGED.sub(r"\\x5b", ("" if self.at_line_start else "\x00") + text)
        marked = marked if self.at_line_start else marked[1:]
        self.at_line_start = text.endswith("\n")
        return _UNSAFE.sub(_escape, marked).encode()
