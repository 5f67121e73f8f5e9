"""The contest running itself, every part a real process on a free port: four contestants
submit over HTTP three working bots of known order (the bundled greedy, lowcard and random,
each wrapped as a one-file upload) and a broken one; the broken one is rejected with its reason,
shown only to its owner; the ladder plays (every version sandboxed, one process per seating);
``serve`` is killed with SIGKILL in the middle of a deal set and started again; no game is lost
or recorded twice, the interrupted deal set ends whole, and the board puts greedy first.

Tables of 2: docs/strategies.md separates greedy from both lowcard (+335) and random (+447) at
every size, while lowcard and random are not separated at 2 seats (+112, intervals overlap), so
the test holds greedy above both and leaves their own order to chance, as the study does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.waiting import until

from .processes import craits, craits_json, read_store, serve
from .uploaded import NEVER_CONNECTS, wrapped

pytestmark = pytest.mark.slow

def _games(contest: Path) -> list[tuple[int, int, str]]:
    with read_store(contest) as db:
        return db.execute("SELECT table_id, rotation, game_id FROM games ORDER BY id").fetchall()


def _tables(contest: Path, state: str) -> list[int]:
    with read_store(contest) as db:
        return [r[0] for r in db.execute("SELECT id FROM ladder_tables WHERE state = ?",
                                         (state,))]


def _me(url: str, token: str) -> dict[str, Any]:
    answer: dict[str, Any] = httpx.get(f"{url}/api/v1/me",
                                       headers={"Authorization": f"Bearer {token}"}).json()
    return answer


def test_the_contest_validates_plays_survives_kill_9_and_orders_the_board(
        tmp_path: Path) -> None:
    contest = tmp_path / "cup"
    craits("contest", "init", contest, "--name", "Ladder cup")
    _configure(contest)
    tokens = {name: craits_json("contest", "add", name, "--dir", contest, "--json")["token"]
              for name in ("greedy", "lowcard", "random", "broken")}
    sources = {name: wrapped(name) for name in ("greedy", "lowcard", "random")}
    sources["broken"] = NEVER_CONNECTS
    for name, text in sources.items():
        (tmp_path / f"bot_{name}.py").write_text(text)

    with serve(contest) as server:
        url = server.url
        for name in sources:
            craits("contest", "submit", "--server", url, "--token", tokens[name],
                   tmp_path / f"bot_{name}.py")

        def judged() -> bool:
            states = [_me(url, tokens[n])["versions"][0]["state"] for n in sources]
            return "validating" not in states

        until(judged, 180, "every version validated")
        for name in ("greedy", "lowcard", "random"):
            assert _me(url, tokens[name])["versions"][0]["state"] == "rated", name
        broken = _me(url, tokens["broken"])["versions"][0]
        assert broken["state"] == "rejected"
        assert "never connected" in broken["reason"] and "status 3" in broken["reason"]
        own = httpx.get(f"{url}/api/v1/versions/{broken['id']}/log",
                        headers={"Authorization": f"Bearer {tokens['broken']}"})
        assert own.status_code == 200 and "no referee for me" in own.text
        for other in ("greedy", "lowcard"):
            for suffix in ("", "/log", "/faults"):
                assert httpx.get(f"{url}/api/v1/versions/{broken['id']}{suffix}", headers={
                    "Authorization": f"Bearer {tokens[other]}"}).status_code == 403
        public = httpx.get(f"{url}/api/v1/standings").text
        assert "no referee for me" not in public and "never connected" not in public

        # Kill -9 in the middle of a deal set: one seating recorded, the next being played.
        until(lambda: len(_tables(contest, "done")) >= 3, 240, "three deal sets played")

        def mid_table() -> bool:
            games = _games(contest)
            playing = _tables(contest, "playing")
            return bool(playing) and any(t in playing for t, _, _ in games)

        until(mid_table, 120, "a deal set half played")
        before = _games(contest)
        interrupted = _tables(contest, "playing")
        server.kill()

    after_kill = _games(contest)
    assert set(before) <= set(after_kill)

    with serve(contest) as server:
        url = server.url

        def board_ready() -> list[dict[str, Any]] | None:
            rows: list[dict[str, Any]] = httpx.get(f"{url}/api/v1/standings").json()["rows"]
            return rows if len(rows) == 3 and not any(r["provisional"] for r in rows) else None

        rows = until(board_ready, 420, "an established board of three")
        text = craits("contest", "standings", "--server", url).stdout

    games = _games(contest)
    assert set(after_kill) <= set(games)  # nothing lost
    keys = [(t, r) for t, r, _ in games]
    assert len(keys) == len(set(keys)) and len({g for _, _, g in games}) == len(games)
    done = set(_tables(contest, "done"))
    assert set(interrupted) <= done  # the interrupted deal set ended whole
    for table in done:
        assert sorted(r for t, r in keys if t == table) == [0, 1]
    assert rows[0]["contestant"] == "greedy", rows
    assert {r["contestant"] for r in rows[1:]} == {"lowcard", "random"}
    assert rows[0]["rating"] > max(r["rating"] for r in rows[1:])
    assert "1. greedy v1" in text


def _configure(contest: Path) -> None:
    """Tables of 2 only (the board is established after the default 10 deal sets each)."""
    path = contest / "contest.toml"
    text = path.read_text()
    text = text.replace("max_seats = 4", "max_seats = 2")
    path.write_text(text)
