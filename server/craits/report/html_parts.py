"""Small HTML building blocks where escaping is the default, not something to remember.

Bot and tournament names are chosen by users, so every value that reaches a page goes through
``esc`` unless it is already ``Html`` (markup built here from escaped parts). Data for scripts
is embedded as JSON inside ``<script type="application/json">`` with ``<``, ``>`` and ``&``
written as ``\\u`` escapes, so no name can close the tag; scripts read it with ``JSON.parse``
and put text on the page with ``textContent`` only.
"""

from __future__ import annotations

import html
import json
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from .assets import STYLE


class Html(str):
    """Markup that is safe as it is (built from escaped parts)."""

    __slots__ = ()


def esc(value: object) -> Html:
    """Any value as HTML text, quotes included (safe in attributes too)."""
    return value if isinstance(value, Html) else Html(html.escape(str(value), quote=True))


def tag(name: str, content: object = "", **attrs: object) -> Html:
    """``<name attrs>content</name>``; ``class_`` gives ``class``; content is escaped."""
    text = "".join(f' {k.rstrip("_").replace("_", "-")}="{esc(v)}"' for k, v in attrs.items()
                   if v is not None)
    return Html(f"<{name}{text}>{esc(content)}</{name}>")


def join(parts: Iterable[object]) -> Html:
    """Several pieces one after the other, each escaped unless it is ``Html``."""
    return Html("".join(esc(p) for p in parts))


def table(head: Sequence[object], rows: Iterable[Sequence[object]], class_: str = "",
          text: Collection[int] = ()) -> Html:
    """A table; columns numbered in ``text`` hold text (left-aligned), the rest numbers."""
    def row(cells: Sequence[object], cell: str) -> Html:
        return tag("tr", join(tag(cell, c, class_="name" if i in text else None)
                              for i, c in enumerate(cells)))
    body = join(row(r, "td") for r in rows)
    return tag("table", join([tag("thead", row(head, "th")), tag("tbody", body)]),
               class_=class_ or None)


def embed_json(data: Any, element_id: str) -> Html:
    """Data for a script, unable to end its ``<script>`` element early."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Html(f'<script type="application/json" id="{esc(element_id)}">{text}</script>')


def page(title: str, header: Html, body: Html, script: str = "") -> Html:
    """A whole self-contained page: inline style and script, nothing fetched from anywhere."""
    js = Html(f"<script>{script}</script>") if script else Html("")
    return Html(
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"{tag('title', title)}<style>{STYLE}</style></head>"
        f'<body><header class="top">{header}</header><main>{body}</main>{js}</body></html>\n'
    )
