"""The TV (``web.live.on_air``): the newest game being played, followed to its end, then the
newest game then, joined midway with its catch-up; a wait while none is played; with a delay,
each game as ``delayed`` shows it. On trio's MockClock."""

from __future__ import annotations

from contextlib import aclosing

import trio
import trio.testing

from craits.contest.live import LiveGame, LiveGames
from craits.contest.web.live import on_air
from craits.engine import Game, Rules


def _play(live: LiveGames, key: str, seed: int) -> tuple[Game, LiveGame]:
    game = Game.new(Rules(), 2, seed)
    live.start(key, [f"{key}-a", f"{key}-b"])(game)
    spectator = live.get(key)
    assert spectator is not None
    return game, spectator


async def _moves(live: LiveGames, key: str, game: Game, spectator: LiveGame, count: int,
                 every: float) -> None:
    for _ in range(count):
        await trio.sleep(every)
        game.apply(game.legal_moves()[0])
        live.step(key, spectator.public.next(game), game.is_over)


def _watch(delay: float) -> list[tuple[str, int, int] | tuple[str, None]]:
    """What the TV gave: (key, first step, last step) per batch, (key, None) at each end."""
    seen: list[tuple[str, int, int] | tuple[str, None]] = []

    async def main() -> None:
        live = LiveGames()

        async def watch() -> None:
            async with aclosing(on_air(live, delay)) as items:
                async for game, batch in items:
                    seen.append((game.key, None) if batch is None
                                else (game.key, batch[0].index, batch[-1].index))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(watch)
            await trio.sleep(5)  # no game yet: the TV waits
            a, sa = _play(live, "1-0", 3)
            await _moves(live, "1-0", a, sa, 5, 0.1)
            b, sb = _play(live, "2-0", 4)  # starts while 1-0 is watched
            await _moves(live, "2-0", b, sb, 3, 0.1)
            live.end("1-0", 1)  # the TV goes to 2-0, under way: its steps from the first
            await _moves(live, "2-0", b, sb, 3, 0.1)
            live.end("2-0", 2)
            await trio.sleep(5)  # none again: it waits
            c, sc = _play(live, "3-0", 5)
            await _moves(live, "3-0", c, sc, 2, 0.1)
            live.end("3-0", 3)
            await trio.sleep(delay + 1)
            nursery.cancel_scope.cancel()

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    return seen


def _games(seen: list[tuple[str, int, int] | tuple[str, None]]) -> list[str]:
    order: list[str] = []
    for item in seen:
        if not order or order[-1] != item[0]:
            order.append(item[0])
    return order


def _steps(seen: list[tuple[str, int, int] | tuple[str, None]], key: str) -> list[int]:
    return [i for item in seen if item[0] == key and len(item) == 3
            for i in range(item[1], item[2] + 1)]


def test_the_tv_follows_the_newest_game_to_its_end_then_the_next() -> None:
    seen = _watch(0.0)
    assert _games(seen) == ["1-0", "2-0", "3-0"]  # each once, in turn, none skipped
    assert [item for item in seen if len(item) == 2] == [("1-0", None), ("2-0", None),
                                                         ("3-0", None)]
    for key, moves in (("1-0", 5), ("2-0", 6), ("3-0", 2)):
        assert _steps(seen, key) == list(range(moves + 1))  # the deal, then each move, once
    first_of_b = next(item for item in seen if item[0] == "2-0")
    assert first_of_b == ("2-0", 0, 3)  # joined midway: the game so far in one batch


def test_with_a_delay_the_tv_shows_each_game_as_late_as_its_own_page() -> None:
    assert _watch(0.0) == _watch(0.0)  # deterministic on the virtual clock
    late = _watch(2.0)
    assert _games(late) == ["1-0", "2-0", "3-0"]
    for key, moves in (("1-0", 5), ("2-0", 6), ("3-0", 2)):
        assert _steps(late, key) == list(range(moves + 1))
