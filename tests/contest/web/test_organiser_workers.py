"""The organiser's live view when a table worker process plays the game (``craits contest serve
--workers 1``, real sandboxed bots): the worker sends each step whole beside the public one,
the service keeps them apart, and the organiser's stream of a game carries every event as it is
(checked against the recorded game), while the spectators' stream of the same game carries the
public events only and the organiser's stream is refused without the organiser's cookie."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from craits.contest.organiser import new_organiser_token
from craits.contest.store import ContestStore
from craits.contest.versions import VersionState
from craits.contest.web.signin import COOKIE

from ..processes import serve
from ..server import make_contest
from ..uploaded import add_version, wrapped
from ..watched import check_watched, watch_a_game

pytestmark = pytest.mark.slow  # a real service, a table worker and sandboxed bots


def test_a_workers_game_whole_for_the_organiser_public_for_spectators(tmp_path: Path) -> None:
    contest = tmp_path / "cup"
    make_contest(contest, names=("ann", "bob"))
    config = contest / "contest.toml"
    config.write_text(config.read_text().replace('preset = "standard"',
                                                 'preset = "standard"\nshort_game = true'))
    store = ContestStore.open(contest / "contest.db")
    for contestant, bot in ((1, "greedy"), (2, "random")):
        version = add_version(contest, store, contestant, wrapped(bot))
        store.set_state(version.id, VersionState.RATED, 0.0)
    organiser = {COOKIE: new_organiser_token(store)}

    with serve(contest, "--workers", "1") as server:
        watched = watch_a_game(server.url, organiser)
        refused = httpx.get(f"{server.url}/organiser/live/{watched.key}/events")
        assert refused.status_code == 403
    store.close()
    check_watched(contest, 2, watched)
