"""The contest's results as files: ``results.json`` (everything, for programs and the record),
``results.csv`` (one row per listed version, for a spreadsheet) and ``results.html`` (a page to
publish, self-contained, in the report's style and with its escaping of every name).

They are the published board, with the phase and the finals' terms beside it, so a file
exported before the finals are done says so rather than passing for final results. Once the
finals have started the board is the finals' own (``phases``: ratings counted from the finals'
games alone), and it lists only the finalists; every other version is then placed after them,
in its order on the board when the finals started (``phases.board_at_finals``), so a contest's
results rank every version that was on the board, not only those of the finals. Each row says
which board placed it (``stage``: ``finals`` or ``ladder``); the two boards' ratings are on
different scales and are not to be compared. Read from the store alone: it works with or
without a service running.
"""

from __future__ import annotations

import csv
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any, Final

from craits.report.html_parts import Html, join, page, table, tag

from .config import ContestConfig
from .phases import board_at_finals, finals_of, phase_now
from .store import ContestStore

COLUMNS: Final = ("rank", "contestant", "version", "version_id", "rating", "low", "high",
                  "games", "deal_sets", "provisional", "stage")


def results(config: ContestConfig, store: ContestStore, now: float) -> dict[str, Any]:
    """What ``results.json`` holds."""
    finals = finals_of(store)
    phase = phase_now(config, store, now)
    order = ("established versions by the lower end of their 95% interval, then provisional "
             "ones by rating (docs/contests.md)")
    board = store.standings()
    rows = [{k: r.get(k) for k in COLUMNS} | {"stage": "ladder" if finals is None else "finals"}
            for r in board]
    if finals is not None:
        order = (f"the finalists by the finals' board ({order}), then the other versions in "
                 "their order on the board when the finals started")
        listed = {r["version_id"] for r in rows}
        rest = [r for r in board_at_finals(store) if r.get("version_id") not in listed]
        rows += [{k: r.get(k) for k in COLUMNS} | {"rank": rank, "stage": "ladder"}
                 for rank, r in enumerate(rest, start=len(rows) + 1)]
    return {"contest": config.name, "phase": phase, "final": phase == "done",
            "exported_at": now, "finals": None if finals is None else asdict(finals),
            "order": order, "rows": rows}


def export_results(config: ContestConfig, store: ContestStore, out: Path, now: float
                   ) -> list[Path]:
    """Write ``results.json``, ``results.csv`` and ``results.html`` into ``out`` (made if
    needed); their paths."""
    data = results(config, store, now)
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "results.json", out / "results.csv", out / "results.html"]
    written[0].write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    with written[1].open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(data["rows"])
    written[2].write_text(results_page(data), encoding="utf-8")
    return written


def results_page(data: dict[str, Any]) -> str:
    """``results.html``: the board as a table, and whether it is final."""
    state = "final results" if data["final"] else f"not final: the contest is {data['phase']}"
    finals = data["finals"]
    terms = "" if finals is None else (f"Finals: {len(finals['finalists'])} finalists, "
                                       f"{finals['deal_sets']} deal sets each. ")

    def interval(row: dict[str, Any]) -> str:
        return "" if row["low"] is None else f"[{row['low']:+.0f}, {row['high']:+.0f}]"

    rows = [(r["rank"], r["contestant"], f"v{r['version']}", r["stage"], f"{r['rating']:+.0f}",
             interval(r), r["games"], r["deal_sets"], "provisional" if r["provisional"] else "")
            for r in data["rows"]]
    body = join([tag("p", f"{terms}Order: {data['order']}."),
                 table(("#", "contestant", "version", "placed by", "rating", "95% interval",
                        "games", "deal sets", ""), rows, text=(1, 2, 3, 8))])
    header = Html(tag("h1", data["contest"]) + tag("p", state))
    return str(page(f"{data['contest']}: {state}", header, Html(body)))
