"""``[web] live_delay_s``: spectators are shown a live game's steps, and its end, only once they
are that old, on the stream, the game's page and the list alike; the organiser's whole game is
not delayed. All on trio's virtual clock (``MockClock``): the steps are stamped with
``trio.current_time()`` as the service gets them, and the test moves the clock by hand."""

from __future__ import annotations

from pathlib import Path

import httpx
import trio
import trio.testing

from craits.contest.live import ENDED_KEPT
from craits.contest.livewhole import OrganisedLiveGames
from craits.contest.service import open_contest
from craits.contest.web.live import PACE_S, delayed, listing, paced, shown
from craits.contest.web.mount import recorded_games
from craits.contest.web.pages import pages_app
from craits.engine import Game, Rules

from ..server import Clock, make_contest

DELAY = 30.0


def play(live: OrganisedLiveGames, key: str, seed: int = 4) -> tuple[Game, object]:
    """A game started on ``live``; its observer, told the deal."""
    game = Game.new(Rules(), 2, seed)
    observe = live.start(key, ["alice v1", "bob v1"])
    observe(game)
    return game, observe


def move(game: Game, observe: object) -> None:
    game.apply(game.legal_moves()[0])
    assert callable(observe)
    observe(game)


def test_the_stream_shows_steps_and_the_end_only_once_they_are_old_enough() -> None:
    got: list[tuple[float, list[int] | None]] = []

    async def main() -> None:
        live = OrganisedLiveGames()
        game, observe = play(live, "1-0")  # step 0 at t=0
        spectator = live.get("1-0")
        assert spectator is not None

        async def read() -> None:
            async for batch in delayed(spectator, DELAY):
                got.append((trio.current_time(),
                            None if batch is None else [s.index for s in batch]))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(read)
            await trio.sleep(10)
            move(game, observe)  # step 1 at t=10
            await trio.sleep(5)
            move(game, observe)  # step 2 at t=15
            move(game, observe)  # step 3 at t=15
            await trio.sleep(5)
            live.end("1-0", 77)  # the end at t=20
            assert got == []  # nothing is 30 s old yet

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert got == [(30.0, [0]), (40.0, [1]), (45.0, [2, 3]), (50.0, None)]


def test_no_delay_streams_at_once() -> None:
    got: list[tuple[float, list[int] | None]] = []

    async def main() -> None:
        live = OrganisedLiveGames()
        game, observe = play(live, "1-0")
        spectator = live.get("1-0")
        assert spectator is not None

        async def read() -> None:
            async for batch in delayed(spectator, 0.0):
                got.append((trio.current_time(),
                            None if batch is None else [s.index for s in batch]))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(read)
            await trio.sleep(10)
            move(game, observe)
            await trio.sleep(10)
            live.end("1-0", 77)

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert got == [(0.0, [0]), (10.0, [1]), (20.0, None)]


def test_the_pages_and_the_list_hold_back_what_the_stream_does(tmp_path: Path) -> None:
    """The list and a game's page, served by the real pages' application (in process, on the
    virtual clock); the organiser's whole game meanwhile has every step."""
    make_contest(tmp_path / "cup", "web.live_delay_s = 30", names=("alice", "bob"))
    contest = open_contest(tmp_path / "cup", Clock())
    assert contest.config.live_delay_s == DELAY
    assert isinstance(contest.live, OrganisedLiveGames)
    live = contest.live
    app = pages_app(contest, lambda: recorded_games(contest))

    async def main() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://cup") as client:
            game, observe = play(live, "3-1")  # t=0
            await trio.sleep(10)
            move(game, observe)  # t=10
            first = (await client.get("/live")).text
            assert "/live/3-1" in first and "<td>0</td>" in first  # listed, no step shown yet
            page = (await client.get("/live/3-1")).text
            assert 'data-shown="0"' in page and "<li>" not in page
            whole = live.whole.get("3-1")
            assert whole is not None and whole.steps == []  # made once the organiser looks
            assert live.look("3-1") is whole  # the organiser's: everything so far, at once
            assert [e for s in whole.steps for e in s.to_dict()["events"]] == [
                e.to_dict() for e in game.events]

            await trio.sleep(25)  # t=35: the deal is old enough, the move not yet
            page = (await client.get("/live/3-1")).text
            assert 'data-shown="1"' in page and "Being played" in page
            live.end("3-1", 9)  # t=35
            await trio.sleep(10)  # t=45: still listed, still being played for spectators
            assert "/live/3-1" in (await client.get("/live")).text
            page = (await client.get("/live/3-1")).text
            assert 'data-shown="2"' in page and "/games/9" not in page
            await trio.sleep(20)  # t=65: the end is 30 s old
            assert "/live/3-1" not in (await client.get("/live")).text
            assert 'href="/games/9"' in (await client.get("/live/3-1")).text
            assert live.whole.get("3-1") is None  # the organiser's copy went at the end

    try:
        trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    finally:
        contest.store.close()


def test_shown_and_listing_without_delay_are_the_game_as_it_is() -> None:
    async def main() -> None:
        live = OrganisedLiveGames()
        game, observe = play(live, "1-0")
        move(game, observe)
        spectator = live.get("1-0")
        assert spectator is not None
        view = shown(spectator, 0.0, trio.current_time())
        assert list(view.steps) == spectator.steps and not view.ended
        assert listing(live) == [{"key": "1-0", "seats": ("alice v1", "bob v1"), "steps": 2}]

    trio.run(main, clock=trio.testing.MockClock())


def test_ended_games_stay_while_their_end_is_delayed() -> None:
    """The bound on ended games (``ENDED_KEPT``) waits for the delay: a game whose end the
    spectators have not been shown yet stays listed and its page stays; without a delay the
    bound holds at once (the control)."""
    async def main() -> None:
        delayed_live, plain = OrganisedLiveGames(), OrganisedLiveGames()
        delayed_live.keep_s = DELAY
        for n in range(ENDED_KEPT + 20):
            for live in (delayed_live, plain):
                play(live, f"{n}-0")
                live.end(f"{n}-0", n)
        assert len(plain.ended) == ENDED_KEPT
        assert len(delayed_live.ended) == ENDED_KEPT + 20
        assert len(listing(delayed_live, DELAY, trio.current_time())) == ENDED_KEPT + 20
        await trio.sleep(DELAY)
        play(delayed_live, "last-0")
        delayed_live.end("last-0", 1)
        assert len(delayed_live.ended) == ENDED_KEPT
        assert listing(delayed_live, DELAY, trio.current_time()) == [
            {"key": "last-0", "seats": ("alice v1", "bob v1"), "steps": 0}]

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def test_a_fast_game_reaches_a_paced_reader_in_a_few_batches_every_step_once() -> None:
    """Steps every 10 ms for 1 s: the paced stream gives them in about one message per
    ``PACE_S``, every step once and in order; the control, unpaced, gives one a step."""

    def batches(every: float) -> list[list[int]]:
        got: list[list[int]] = []

        async def main() -> None:
            live = OrganisedLiveGames()
            game, observe = play(live, "1-0")
            spectator = live.get("1-0")
            assert spectator is not None

            async def read() -> None:
                async for batch in paced(spectator.follow(), every):
                    if batch is not None:
                        got.append([s.index for s in batch])

            async with trio.open_nursery() as nursery:
                nursery.start_soon(read)
                for _ in range(100):
                    if game.is_over:
                        break
                    await trio.sleep(0.01)
                    move(game, observe)
                await trio.sleep(0.01)
                live.end("1-0", 1)

        trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
        return got

    paced_batches, control = batches(PACE_S), batches(0.0)
    steps = [i for batch in control for i in batch]
    assert steps == list(range(len(steps))) and len(steps) > 20
    assert [i for batch in paced_batches for i in batch] == steps
    assert len(control) == len(steps)
    assert len(paced_batches) <= len(steps) * 0.01 / PACE_S + 2
