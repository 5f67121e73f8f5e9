"""The readers of a live game share its stream's messages: paced on the clock's ticks, those
that have caught up are at the same step and are sent the same bytes, encoded once
(``web.live.steps_message``, ``LiveGame.encoded``). On trio's MockClock."""

from __future__ import annotations

import json
import types
from contextlib import aclosing
from typing import cast

import trio
import trio.testing

from craits.contest.live import LiveGame, LiveGames
from craits.contest.web.live import PACE_S, paced, steps_message
from craits.engine import Game, Rules


def _game(live: LiveGames) -> tuple[Game, LiveGame]:
    game = Game.new(Rules(), 2, 4)
    observe = live.start("1-0", ["alice v1", "bob v1"])
    observe(game)
    spectator = live.get("1-0")
    assert spectator is not None
    return game, spectator


def test_readers_that_join_apart_get_the_same_batches_once_caught_up() -> None:
    """Two readers join 0.1 s apart while a step comes every 0.01 s: each is sent the game so
    far, then at the first tick the steps since, which end at the same step for both; from
    then on every batch is the same for both, as the same bytes object."""
    got: dict[str, list[tuple[int, int]]] = {"a": [], "b": []}
    messages: dict[str, list[bytes]] = {"a": [], "b": []}

    async def main() -> None:
        live = LiveGames()
        game, spectator = _game(live)

        async def read(name: str, after: float) -> None:
            await trio.sleep(after)
            async for batch in paced(spectator.follow()):
                if batch is None:
                    return
                got[name].append((batch[0].index, batch[-1].index))
                messages[name].append(steps_message(spectator, batch))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(read, "a", 0.03)
            nursery.start_soon(read, "b", 0.13)
            for _ in range(150):
                await trio.sleep(0.01)
                if game.is_over:
                    break
                game.apply(game.legal_moves()[0])
                live.step("1-0", spectator.public.next(game), game.is_over)
            await trio.sleep(0.01)
            live.end("1-0", 1)

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    a, b = got["a"], got["b"]
    assert a[0][0] == b[0][0] == 0 and a[0] != b[0]  # each its own catch-up
    assert a[1][1] == b[1][1]  # the first tick: both at the same step
    assert len(a) > 4 and a[2:] == b[2:]  # then the same spans, tick by tick
    assert messages["a"][2:] == messages["b"][2:]
    # the same bytes object while the game is played (the last may come after its end)
    assert all(x is y for x, y in zip(messages["a"][2:-1], messages["b"][2:-1], strict=True))
    assert len(a) <= 150 * 0.01 / PACE_S + 2  # not more messages than the ticks


def test_a_message_is_the_steps_json_and_is_dropped_once_a_step_comes() -> None:
    """And none is kept once the game has ended: a reader opening an ended game's stream is
    sent the whole game, which nothing would drop while the game is kept."""
    async def main() -> None:
        live = LiveGames()
        game, spectator = _game(live)
        for _ in range(3):
            game.apply(game.legal_moves()[0])
            live.step("1-0", spectator.public.next(game), False)
        steps = spectator.steps
        message = steps_message(spectator, steps)
        assert steps_message(spectator, steps[:]) is message  # the same span: shared
        lines = message.decode().split("\r\n")
        assert lines[:2] == ["event: steps", f"id: {steps[-1].index}"] or \
            lines[:2] == [f"id: {steps[-1].index}", "event: steps"]
        data = json.loads(next(x for x in lines if x.startswith("data: "))[6:])
        assert data == [step.to_dict() for step in steps]
        assert steps_message(spectator, steps[1:]) is not message  # another span
        game.apply(game.legal_moves()[0])
        live.step("1-0", spectator.public.next(game), False)
        assert spectator.encoded == {}  # a step came: nothing older is kept
        steps_message(spectator, spectator.steps)
        assert spectator.encoded != {}
        live.end("1-0", 1)
        assert spectator.encoded == {}
        ended = steps_message(spectator, spectator.steps)  # a reader opening it after the end
        assert b"event: steps" in ended and spectator.encoded == {}  # sent, not kept

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def _suspended(generator: object) -> bool:
    """Whether an async generator is still open (a frame left for trio's finalizer)."""
    return cast(types.AsyncGeneratorType[object, None], generator).ag_frame is not None


def test_a_stream_that_ends_or_is_dropped_closes_the_generators_it_reads() -> None:
    """A reader that stops at the end (or leaves midway) leaves no generator of the chain
    suspended: ``paced`` closes what it reads (``aclosing``; ``delayed`` and the stream's own
    generator do the same), so trio's finalizer, a hand-off through its wake-up socket for
    each, is never needed. The control: a follower left as a bare iterator stays suspended."""
    async def main() -> None:
        live = LiveGames()
        game, spectator = _game(live)
        follower = spectator.follow()
        async with aclosing(paced(follower)) as steps:
            async for batch in steps:
                if batch is None:
                    break
                if not game.is_over:
                    game.apply(game.legal_moves()[0])
                    live.step("1-0", spectator.public.next(game), game.is_over)
                else:
                    live.end("1-0", 1)
        assert not _suspended(follower)  # closed, not left suspended

        dropped = spectator.follow()
        async with aclosing(paced(dropped)) as steps:
            await anext(steps)  # the reader leaves midway
        assert not _suspended(dropped)

        control = spectator.follow()
        await anext(control)  # read as a bare iterator, then left
        assert _suspended(control)

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
