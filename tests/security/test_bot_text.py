"""What a bot wrote reaches the organiser as text, never as terminal control: a crashing bot's
escape codes in its last stderr line, and control characters in a bad reply's text."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from craits.hosting.match import run_match
from craits.referee import bridge
from craits.referee.game import PlayedGame
from craits.report.stored import load_game
from craits.text import printable
from craits.tournament.plan.config import config_from_dict
from craits.tournament.store.database import Store
from craits.tournament.store.game_records import LoggedFault

from ..bots.helpers import spec
from ..report.helpers import play
from .escaping_bot import LAST_WORDS

ESCAPING_BOT = Path(__file__).with_name("escaping_bot.py")


def _no_controls(text: str) -> bool:
    return not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or c == "\u202e" for c in text)


def test_printable_shows_control_characters_instead_of_obeying_them() -> None:
    assert printable("plain text, ünïcode ♠") == "plain text, ünïcode ♠"
    assert printable("\x1b[2Jx\ny\x07\x9b\u202e") == "\\x1b[2Jx\\x0ay\\x07\\x9b\\u202e"


@pytest.mark.slow
def test_a_crashing_bots_escape_codes_reach_the_record_as_visible_text(tmp_path: Path) -> None:
    async def main() -> PlayedGame:
        return await run_match([f"{sys.executable} {ESCAPING_BOT}", "random"],
                               spec("escapes"), tmp_path)

    result = bridge.run(main)
    crash = [f for f in result.faults if f.kind == "crash"]
    assert crash, result.faults
    detail = crash[0].detail
    assert _no_controls(detail)
    assert printable(LAST_WORDS) in detail and "\\x1b]0;pwned\\x07" in detail
    assert result.forfeited == (True, False)


def test_a_fault_recorded_with_escape_codes_is_shown_escaped(tmp_path: Path) -> None:
    """Games recorded before the referee escaped bot text are escaped when read back, for the
    terminal and the HTML report alike."""
    config = config_from_dict({"name": "old", "seed": 1, "table_size": 2, "deal_sets": 1,
                               "bots": [{"name": "a"}, {"name": "b"}]})
    with Store.open(tmp_path / "r.db") as store:
        tid = store.create_tournament(config)
        job = store.jobs(tid)[0]
        finished = play(job)
        raw = LoggedFault("fault", 0, "crash", LAST_WORDS, 1)
        play_log = replace(finished.play, faults=(*finished.play.faults, raw))
        assert store.record_game(replace(finished, play=play_log))
        game = load_game(store, tid, job.game_index)
    (fault,) = game.faults
    assert fault.detail == printable(LAST_WORDS) and _no_controls(fault.detail)
    assert _no_controls(json.dumps(game.to_dict(), ensure_ascii=False))
