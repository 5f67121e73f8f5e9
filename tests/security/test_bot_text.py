"""What a bot wrote reaches the organiser as text, never as terminal control: a crashing bot's
escape codes in its last stderr line, and control characters in a bad reply's text."""

from __future__ import annotations

import sys
from pathlib import Path

from craits.referee import bridge
from craits.referee.game import GameResult
from craits.referee.match import run_match
from craits.text import printable

from ..bots.helpers import spec
from .escaping_bot import LAST_WORDS

ESCAPING_BOT = Path(__file__).with_name("escaping_bot.py")


def _no_controls(text: str) -> bool:
    return not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or c == "\u202e" for c in text)


def test_printable_shows_control_characters_instead_of_obeying_them() -> None:
    assert printable("plain text, ünïcode ♠") == "plain text, ünïcode ♠"
    assert printable("\x1b[2Jx\ny\x07\x9b\u202e") == "\\x1b[2Jx\\x0ay\\x07\\x9b\\u202e"


def test_a_crashing_bots_escape_codes_reach_the_record_as_visible_text(tmp_path: Path) -> None:
    async def main() -> GameResult:
        return await run_match([f"{sys.executable} {ESCAPING_BOT}", "random"],
                               spec("escapes"), tmp_path)

    result = bridge.run(main)
    crash = [f for f in result.faults if f.kind == "crash"]
    assert crash, result.faults
    detail = crash[0].detail
    assert _no_controls(detail)
    assert printable(LAST_WORDS) in detail and "\\x1b]0;pwned\\x07" in detail
    assert result.forfeited == (True, False)
