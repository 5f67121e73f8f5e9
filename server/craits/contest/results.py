"""The contest's results as files: ``results.json`` (everything, for programs and the record)
and ``results.csv`` (one row per listed version, for a spreadsheet or an announcement).

They are the published board, which in the finals is the finals' own (``phases``: ratings
counted from the finals' games alone), with the phase and the finals' terms beside it, so a
file exported before the finals are done says so rather than passing for final results. Read
from the store alone: it works with or without a service running.
"""

from __future__ import annotations

import csv
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any, Final

from .config import ContestConfig
from .phases import finals_of, phase_now
from .store import ContestStore

COLUMNS: Final = ("rank", "contestant", "version", "version_id", "rating", "low", "high",
                  "games", "deal_sets", "provisional")


def results(config: ContestConfig, store: ContestStore, now: float) -> dict[str, Any]:
    """What ``results.json`` holds."""
    finals = finals_of(store)
    phase = phase_now(config, store, now)
    return {"contest": config.name, "phase": phase, "final": phase == "done",
            "exported_at": now, "finals": None if finals is None else asdict(finals),
            "order": "established versions by the lower end of their 95% interval, then "
                     "provisional ones by rating (docs/contests.md)",
            "rows": [{k: r.get(k) for k in COLUMNS} for r in store.standings()]}


def export_results(config: ContestConfig, store: ContestStore, out: Path, now: float
                   ) -> list[Path]:
    """Write ``results.json`` and ``results.csv`` into ``out`` (made if needed); their paths."""
    data = results(config, store, now)
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "results.json", out / "results.csv"]
    written[0].write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    with written[1].open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(data["rows"])
    return written
