"""The leaderboard is rendered once per revision of the board for every reader, served with an
ETag, and answered ``304 Not Modified`` when the reader has it (``boardpage.py``); its trend
column reads the rating history (``board.py``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import httpx
import trio
import trio.testing

from craits.contest.ladderstore import publish_board
from craits.contest.store import ContestStore
from craits.contest.verdicts import record_refit
from craits.contest.web.board import TREND_S, Board, BoardRow, read_board
from craits.contest.web.boardpage import BoardPages, Rendered
from craits.contest.web.feed import Feed
from craits.contest.web.pages import TEMPLATES
from craits.contest.web.signin import COOKIE

from ..server import make_contest, serving
from .data import play_game, rated_version


def _table(page: str) -> str:
    return page[page.index('<table id="board">'):page.index("</table>")]


def row(contestant: str, rating: float) -> BoardRow:
    return BoardRow(1, contestant, 1, 1, rating, rating - 50, rating + 50, 10, "rated")


def test_many_readers_share_one_rendering_per_revision() -> None:
    board = [Board((row("alice", 12.0),), "open")]
    reads: list[int] = []

    def read() -> Board:
        reads.append(1)
        return board[0]

    async def inline(read: Callable[[], Board]) -> Board:
        return read()

    async def main() -> None:
        pages = BoardPages(Feed(read, 1.0, inline), TEMPLATES.env, "Cup")
        got: list[Rendered] = []

        async def poll() -> None:
            got.append(await pages.current())

        async with trio.open_nursery() as nursery:
            for _ in range(50):
                nursery.start_soon(poll)
        assert len(got) == 50 and all(r is got[0] for r in got)
        assert (len(reads), pages.renders) == (1, 1)
        assert b"alice" in got[0].page and b"+12" in got[0].page

        await trio.sleep(1.0)  # read again, unchanged: the same rendering
        assert await pages.current() is got[0]
        assert (len(reads), pages.renders) == (2, 1)

        board[0] = Board((row("alice", 40.0),), "open")
        await trio.sleep(0.5)  # changed, but read less than an interval ago: not seen yet
        assert await pages.current() is got[0]
        await trio.sleep(0.5)
        fresh = await pages.current()
        assert pages.renders == 2 and fresh.etag != got[0].etag and b"+40" in fresh.page

        streams: list[list[bytes]] = [[], []]

        async def follow(into: list[bytes]) -> None:
            async for rendered in pages.changes():
                into.append(rendered.event)

        async with trio.open_nursery() as nursery:
            for into in streams:
                nursery.start_soon(follow, into)
            await trio.sleep(0.1)
            board[0] = Board((row("alice", 7.0),), "frozen")
            await trio.sleep(1.5)
            nursery.cancel_scope.cancel()
        first, second = streams
        assert len(first) == len(second) == 2
        assert all(a is b for a, b in zip(first, second, strict=True))  # encoded once
        assert first[0].startswith(b"event: board") and b"+7" in first[1]
        assert pages.renders == 3

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def test_the_page_has_an_etag_and_a_reader_who_has_it_gets_304(tmp_path: Path) -> None:
    tokens = make_contest(tmp_path / "cup", names=("alice", "bob"))
    with serving(tmp_path / "cup") as served:
        store = served.contest.store
        alice, bob = store.contestants()
        a1, b1 = rated_version(store, alice.id, "a1"), rated_version(store, bob.id, "b1")
        play_game(store, [a1.id, b1.id], seed=1)
        with httpx.Client(base_url=served.url) as client:
            first = client.get("/")
            etag = first.headers["etag"]
            assert first.status_code == 200 and "alice" in first.text
            assert first.headers["cache-control"] == "no-cache"
            assert "cookie" in first.headers["vary"].lower()
            for asked in (etag, f"W/{etag}", f'"other", {etag}', "*"):
                again = client.get("/", headers={"If-None-Match": asked})
                assert (again.status_code, again.content) == (304, b""), asked
                assert again.headers["etag"] == etag
            assert client.get("/", headers={"If-None-Match": '"other"'}).status_code == 200
            # a signed-in reader's page names them: made for them, around the same table
            client.cookies.set(COOKIE, tokens["alice"])
            mine = client.get("/")
            client.cookies.clear()
            assert mine.status_code == 200 and 'id="me">alice<' in mine.text
            assert "etag" not in mine.headers and 'id="me"' not in first.text
            assert _table(mine.text) == _table(first.text)

            play_game(store, [a1.id, b1.id], seed=2)  # the board changes
            for _ in range(100):  # the feed reads it again within its interval (1 s)
                changed = client.get("/", headers={"If-None-Match": etag})
                if changed.status_code == 200:
                    break
                time.sleep(0.05)
            assert changed.status_code == 200 and changed.headers["etag"] != etag


def test_the_trend_is_the_rating_change_over_the_last_hour(tmp_path: Path) -> None:
    make_contest(tmp_path / "cup", names=("alice", "bob", "carol"))
    store = ContestStore.open(tmp_path / "cup" / "contest.db")
    try:
        alice, bob, carol = store.contestants()
        a1, b1 = rated_version(store, alice.id, "a1"), rated_version(store, bob.id, "b1")
        c1 = rated_version(store, carol.id, "c1")
        now = 1_900_000_000.0

        def point(version: int, rating: float, games: int, at: float) -> None:
            record_refit(store, [{"version_id": version, "rating": rating, "low": None,
                                  "high": None, "games": games, "deal_sets": games,
                                  "rank": 1}], {}, at)

        assert read_board(store, 1, now)[0].trend is None  # no history table yet
        point(a1.id, 10.0, 1, now - 2 * TREND_S)
        point(a1.id, 30.0, 2, now - TREND_S - 1)  # the last point an hour ago
        point(a1.id, 90.0, 3, now - 60)
        point(b1.id, -20.0, 1, now - 600)  # rated for ten minutes: from its first point
        point(b1.id, -35.0, 2, now - 60)
        publish_board(store, [
            {"contestant": "alice", "contestant_id": alice.id, "version": 1,
             "version_id": a1.id, "rating": 95.0, "games": 3, "status": "rated"},
            {"contestant": "bob", "contestant_id": bob.id, "version": 1, "version_id": b1.id,
             "rating": -35.0, "games": 2, "status": "rated"},
            {"contestant": "carol", "contestant_id": carol.id, "version": 1,
             "version_id": c1.id, "rating": 0.0, "games": 0, "status": "provisional"}], now)
        rows = read_board(store, 1, now)
        assert [(r.contestant, r.trend) for r in rows] == [
            ("alice", 65.0), ("bob", -15.0), ("carol", None)]
        assert [r.trend for r in read_board(store, 1)] == [None, None, None]  # no time, none
    finally:
        store.close()
