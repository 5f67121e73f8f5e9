"""Reading the report back: HTML tables and elements, and the viewer's states folded in Python.

``fold`` applies the frame patches exactly as the viewer script does, so tests can compare every
state the page would show with the engine, without a browser.
"""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any


class Elements(HTMLParser):
    """Attributes and text of every element that has an id; rows of every table by class."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.by_id: dict[str, dict[str, str]] = {}
        self.text: dict[str, str] = {}
        self.tables: dict[str, list[list[str]]] = {}
        self._open: list[tuple[str, str | None]] = []
        self._table: str | None = None
        self._cell: list[str] | None = None
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag in ("input", "meta", "br", "rect", "line"):
            return
        self._open.append((tag, a.get("id")))
        if "id" in a:
            self.by_id[a["id"]] = a
            self.text[a["id"]] = ""
        if tag == "table":
            self._table = a.get("class") or a.get("id") or ""
            self.tables[self._table] = []
        elif tag == "tr" and self._table is not None:
            self.tables[self._table].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._table is not None:
            self.tables[self._table][-1].append("".join(self._cell).strip())
            self._cell = None
        if tag == "table":
            self._table = None
        while self._open:
            name, _ = self._open.pop()
            if name == tag:
                break

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        for _, ident in self._open:
            if ident is not None:
                self.text[ident] += data


def fold(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The full states from their patches, as the viewer script rebuilds them."""
    states: list[dict[str, Any]] = []
    prev: dict[str, Any] = {"h": []}
    for patch in frames:
        state = {**prev, "log": [], "mv": None, **patch}
        hands = list(prev["h"])
        for seat, cards in patch.get("h", {}).items():
            while len(hands) <= int(seat):
                hands.append("")
            hands[int(seat)] = cards
        state["h"] = hands
        states.append(state)
        prev = state
    return states
