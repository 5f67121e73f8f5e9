"""The phases page shows the finals as they go (finalists, deal sets played of the target,
done) and links the results, which say they are final once the finals are done. A real store
with games recorded as the ladder records them; the pages' application served in process."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import trio

from craits.contest.phases import finals_turn, start_finals
from craits.contest.service import open_contest
from craits.contest.web.mount import recorded_games
from craits.contest.web.pages import pages_app

from ..server import Clock, make_contest
from .data import play_game, rated_version


def get(app: object, path: str) -> str:
    async def main() -> str:
        transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://cup") as client:
            response = await client.get(path)
            assert response.status_code == 200, path
            return response.text

    return trio.run(main)


def finalist_rows(page: str) -> list[tuple[str, str]]:
    table = page.split('<table id="finalists">')[1].split("</table>")[0]
    return re.findall(r'<td class="name">([^<]*)</td><td>([^<]*)</td>', table)


def test_the_finals_on_the_phases_page(tmp_path: Path) -> None:
    make_contest(tmp_path / "cup", "phases.finalists = 2\nphases.finals_deal_sets = 2",
                 names=("alice", "bob", "carol"))
    contest = open_contest(tmp_path / "cup", Clock())
    store = contest.store
    try:
        alice, bob, carol = store.contestants()
        a1, b1 = rated_version(store, alice.id, "a1"), rated_version(store, bob.id, "b1")
        c1 = rated_version(store, carol.id, "c1")
        for seed in range(3):
            play_game(store, [a1.id, b1.id, c1.id], seed)
        app = pages_app(contest, lambda: recorded_games(contest))
        before = get(app, "/phases")
        assert "Not started" in before and 'id="results"' not in before

        finals = start_finals(contest.config, store, 1.0)
        names = {a1.id: "alice v1", b1.id: "bob v1", c1.id: "carol v1"}
        shown = [names[v] for v in finals.finalists]
        play_game(store, list(finals.finalists), seed=10)  # one finals deal set each
        during = get(app, "/phases")
        assert finalist_rows(during) == [(n, "1 / 2") for n in shown]
        assert "being played" in during and "<b>done</b>" not in during
        assert "not final" in get(app, "/results")

        play_game(store, list(finals.finalists), seed=11)
        assert not finals_turn(contest.config, store, lambda: recorded_games(contest),
                               list(finals.finalists), 2.0)  # the finals are done
        after = get(app, "/phases")
        assert finalist_rows(after) == [(n, "2 / 2") for n in shown]
        assert "<b>done</b>" in after and 'href="/results" id="results">the final results' in after
        results = get(app, "/results")
        assert "final results" in results and "not final" not in results
        assert all(n.split()[0] in results for n in shown)
    finally:
        store.close()
