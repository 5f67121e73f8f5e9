"""docs/writing-a-bot.md against the code it describes: every field a bot can read on a view is
in the page's field table (its Monte Carlo example used ``history_len``, which the table left
out), and every bundled bot has its line in "The bundled bots"."""

from __future__ import annotations

import re
from pathlib import Path

from craits_bots.registry import BUNDLED
from craits_sdk import View
from craits_sdk.view import OBSERVED

DOC = Path(__file__).resolve().parents[2] / "docs" / "writing-a-bot.md"


def _section(title: str) -> str:
    text = DOC.read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end]


def test_the_view_table_names_every_field_and_method_a_bot_can_read() -> None:
    table = _section("The view")
    named = {name for row in re.findall(r"^\| (.*?) \|", table, flags=re.M)
             for name in re.findall(r"`(\w+)(?:\(\w*\))?`", row)}
    public = {name for name in (*View.__slots__, *vars(View))
              if not name.startswith("_") and name not in ("of", "from_observation",
                                                          "with_rejection")}
    assert set(OBSERVED) <= public  # the table is checked against what a view really has
    assert "history_len" in public
    assert public - named == set()


def test_every_bundled_bot_has_its_line() -> None:
    lines = re.findall(r"^- `(\w+)`: ", _section("The bundled bots"), flags=re.M)
    assert sorted(lines) == sorted(BUNDLED)
    assert "The one to beat" in _section("The bundled bots")
