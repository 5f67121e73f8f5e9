"""Pruning old versions' files: a contest of weeks with contestants who upload every hour would
otherwise keep every archive they ever sent.

``[versions] keep = N`` (0, the default: keep all) keeps the files of each contestant's newest N
versions. An older version's ``bots/<hash>`` is removed only when no version that may still
run names the same content: not one that plays (the newest ``[versions] playing`` rated ones),
not one being validated, not one seated at a ladder table still open (a killed service's
successor replays those), not a finalist. The version's row, its games, ratings, history and
verdicts stay: only the files go, and the version's id is listed in ``meta`` as pruned (for
the organiser; a later identical upload stores the files again, as any upload does).

The ladder prunes at start and after every few tables, also while other tables are in flight
(table workers): a version seated at a claimed table is kept, so none is pruned under its
table; the validator only ever runs versions in ``validating``, which are never pruned. One
window is left: an upload of content identical to a version pruned at that very instant, by another
contestant, finds the directory present, drops its copy, and may then find it gone; its
validation then rejects it for missing files, and a re-upload of changed content fixes it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

from .archive import remove_tree
from .config import ContestConfig
from .phases import finals_of
from .store import ContestStore
from .uploads import BOTS
from .versions import VersionState

PRUNED_KEY: Final = "pruned_versions"
"""``meta``: the ids of versions whose files were pruned (JSON list)."""


def needed_versions(config: ContestConfig, store: ContestStore) -> set[int]:
    """Versions whose files must stay (module doc)."""
    keep = config.keep_versions
    needed: set[int] = set()
    for contestant in store.contestants():
        versions = store.versions_of(contestant.id)  # newest first
        needed.update(v.id for v in versions[:keep] if keep)
        needed.update(v.id for v in versions if v.state == VersionState.VALIDATING)
        needed.update(v.id for v in store.playing_versions(contestant.id,
                                                           config.playing_versions))
        if not keep:
            needed.update(v.id for v in versions)
    for (versions_json,) in store.read("SELECT versions FROM ladder_tables WHERE state = "
                                       "'playing'"):
        needed.update(json.loads(versions_json))
    finals = finals_of(store)
    if finals is not None:
        needed.update(finals.finalists)
    return needed


def pruned_versions(store: ContestStore) -> set[int]:
    """Versions whose files were pruned."""
    rows = store.read("SELECT value FROM meta WHERE key = ?", (PRUNED_KEY,))
    return set(json.loads(rows[0][0])) if rows else set()


def prune_archives(directory: Path, config: ContestConfig, store: ContestStore) -> list[str]:
    """Remove the files of versions beyond ``[versions] keep`` that nothing needs; returns
    the content hashes removed (none when ``keep`` is 0)."""
    if not config.keep_versions:
        return []
    needed = needed_versions(config, store)
    hashes_needed: set[str] = set()
    candidates: dict[str, list[int]] = {}
    for contestant in store.contestants():
        for version in store.versions_of(contestant.id):
            if version.id in needed:
                hashes_needed.add(version.content_hash)
            else:
                candidates.setdefault(version.content_hash, []).append(version.id)
    already = pruned_versions(store)
    removed, marked = [], set(already)
    for digest, ids in candidates.items():
        if digest in hashes_needed:
            continue
        marked.update(ids)
        path = directory / BOTS / digest
        if path.exists():
            remove_tree(path)
            removed.append(digest)
    if marked != already:
        with store.transaction() as db:
            db.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO "
                       "UPDATE SET value = excluded.value", (PRUNED_KEY,
                                                              json.dumps(sorted(marked))))
    return removed
