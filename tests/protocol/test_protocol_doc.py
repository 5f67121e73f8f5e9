"""docs/protocol.md must describe every event kind a bot can receive (it is meant to be enough
to write a bot in any language)."""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path

from craits import engine
from craits.engine import Game, preset

PROTOCOL_MD = Path(__file__).parents[2] / "docs" / "protocol.md"


def _documented_kinds() -> set[str]:
    """The first column of the table in docs/protocol.md's History section."""
    text = PROTOCOL_MD.read_text()
    start = text.index("### History")
    section = text[start:text.index("\n## ", start)]
    return set(re.findall(r"^\| `(\w+)` \|", section, flags=re.MULTILINE))


def _engine_kinds() -> set[str]:
    """The kinds in the engine's own table (``craits.engine.events``' docstring, read from the
    source: a module compiled with mypyc keeps no ``__doc__``)."""
    source = Path(engine.__file__).with_name("events.py")  # the package's sources, either build
    doc = ast.get_docstring(ast.parse(source.read_text(encoding="utf-8"))) or ""
    return set(re.findall(r"^\| (\w+) \|", doc, flags=re.MULTILINE)) - {"kind"}


def test_the_protocol_doc_lists_the_same_event_kinds_as_the_engine() -> None:
    assert _engine_kinds() and _documented_kinds() == _engine_kinds()


def test_every_kind_seen_in_play_is_documented() -> None:
    rng = random.Random(5)
    seen: set[str] = set()
    for seed in range(12):
        game = Game.new(preset("standard"), 2 + seed % 4, seed)
        while not game.is_over:
            game.apply(rng.choice(game.legal_moves()))
        seen |= {e.kind for e in game.events}
    assert len(seen) > 15
    assert seen <= _documented_kinds()
