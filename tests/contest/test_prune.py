"""Pruning old versions' files (``[versions] keep``) on a real store and real directories: only
versions beyond ``keep`` that nothing may run lose their files."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from craits.contest.config import load_contest_config
from craits.contest.ladderstore import claim_table
from craits.contest.prune import prune_archives, pruned_versions
from craits.contest.store import ContestStore
from craits.contest.versions import VersionState

from .server import make_contest
from .uploaded import add_version, wrapped


def test_only_unneeded_old_versions_lose_their_files(tmp_path: Path) -> None:
    contest = tmp_path / "cup"
    make_contest(contest, "versions.keep = 2", names=("ann", "bob", "cid", "dan"))
    config = load_contest_config(contest)
    assert config.keep_versions == 2 and config.playing_versions == 2
    store = ContestStore.open(contest / "contest.db")

    def version(contestant: int, text: str, state: VersionState) -> int:
        made = add_version(contest, store, contestant, wrapped("greedy") + f"# {text}\n")
        if state != VersionState.VALIDATING:
            store.set_state(made.id, state, 0.0, "a reason")
        return made.id

    rated, rejected, validating = VersionState.RATED, VersionState.REJECTED, \
        VersionState.VALIDATING
    ann = [version(1, f"ann {n}", rated) for n in range(1, 6)]
    shared = version(3, "ann 2", rated)  # cid plays the same content as ann's v2
    bob = [version(2, "bob 1", rated), version(2, "bob 2", rejected),
           version(2, "bob 3", rated)]
    dan = [version(4, f"dan {n}", validating) for n in range(1, 4)]
    claim_table(store, [ann[0], bob[2]], "test", 0.0)  # an open table seats ann's v1

    def files(version_id: int) -> bool:
        found = store.version(version_id)
        assert found is not None
        return (contest / "bots" / found.content_hash).is_dir()

    removed = prune_archives(contest, config, store)
    gone = store.version(ann[2])
    assert gone is not None and removed == [gone.content_hash]
    assert not files(ann[2])
    kept = [ann[0], ann[1], ann[3], ann[4], shared, *bob, *dan]
    assert all(files(v) for v in kept), [v for v in kept if not files(v)]
    # bob's v1 is beyond keep (v3, v2) but plays (the newest 2 rated: v3 and v1); dan's v1 is
    # beyond keep but waits for validation; ann's v1 sits at an open table, v2 is cid's too.
    assert pruned_versions(store) == {ann[2]}
    assert prune_archives(contest, config, store) == []
    assert json.loads(store.read("SELECT value FROM meta WHERE key = 'pruned_versions'")[0][0])

    everything = dataclasses.replace(config, keep_versions=0)
    assert prune_archives(contest, everything, store) == []
    store.close()
