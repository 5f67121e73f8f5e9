"""What a table worker sends the service while it plays (``tableworker.SentFeed``, ``Batched``)
and what the service makes of it (``tableworker_pool.relay``), on real games of the engine:

- the organiser's whole steps are made only for the games the service asks for, the first of
  them holding everything since the deal (the control: a feed not on demand sends them for
  every game, as a Ray actor's does);
- the messages go in batches at most ``BATCH_S`` apart (on trio's virtual clock), in order, and
  relayed they give the service's live games the same steps as messages sent one by one.
"""

from __future__ import annotations

import pickle
from dataclasses import replace
from typing import Any

import pytest
import trio
import trio.testing

from craits.contest.live import LiveGames, Steps
from craits.contest.livewhole import OrganisedLiveGames, players_told, whole_step
from craits.contest.tableworker import BATCH_S, Batched, SentFeed, is_want
from craits.contest.tableworker_pool import Ended, relay
from craits.engine import Game, Rules

SEATS = ("ann v1", "bob v1")


class Sent:
    """A ``Sender`` that keeps what it is given."""

    def __init__(self) -> None:
        self.messages: list[Any] = []

    def send(self, message: Any) -> None:
        self.messages.append(message)


def moves(game: Game, observe: Any, count: int) -> None:
    for _ in range(count):
        game.apply(game.legal_moves()[0])
        observe(game)


def kinds(messages: list[Any]) -> list[str]:
    return [m[0] for m in messages]


def whole_events(messages: list[Any]) -> list[dict[str, Any]]:
    return [e for m in messages if m[0] == "whole" for e in m[2].to_dict()["events"]]


def test_whole_steps_only_once_wanted_and_then_from_the_deal() -> None:
    sent = Sent()
    feed = SentFeed(sent, on_demand=True)
    game = Game.new(Rules(), 2, 7)
    observe = feed.start("4-0", SEATS)
    observe(game)
    moves(game, observe, 5)
    assert kinds(sent.messages) == ["live"] + ["step"] * 6  # no whole step: nobody looked
    feed.want("4-0")  # the organiser looks: everything so far, at once
    assert kinds(sent.messages[7:]) == ["whole"]
    moves(game, observe, 3)
    assert kinds(sent.messages[8:]) == ["step", "whole"] * 3
    assert whole_events(sent.messages) == [e.to_dict() for e in game.events]
    assert [m[2].index for m in sent.messages if m[0] == "whole"] == [0, 1, 2, 3]
    feed.want("4-0")  # again: nothing more
    feed.want("9-9")  # a game not played here: nothing
    feed.end("4-0", 12)
    feed.want("4-0")  # ended: nothing
    assert kinds(sent.messages[14:]) == ["recorded"]


def test_the_control_every_game_whole_when_not_on_demand() -> None:
    sent = Sent()
    feed = SentFeed(sent)
    game = Game.new(Rules(), 2, 7)
    observe = feed.start("4-0", SEATS)
    observe(game)
    moves(game, observe, 5)
    assert kinds(sent.messages) == ["live"] + ["step", "whole"] * 6
    assert whole_events(sent.messages) == [e.to_dict() for e in game.events]


def test_batches_at_most_batch_s_apart_relayed_as_one_by_one() -> None:
    batches: list[tuple[float, int]] = []
    one_by_one, batched = OrganisedLiveGames(), OrganisedLiveGames()

    class Conn:
        def send(self, message: Any) -> None:
            assert message[0] == "batch"
            batches.append((trio.current_time(), len(message[1])))
            assert relay(message, batched, "worker") is None

    async def main() -> None:
        sender = Batched(Conn())
        direct = Sent()
        feeds = SentFeed(sender, on_demand=True), SentFeed(direct, on_demand=True)
        games = Game.new(Rules(), 2, 3), Game.new(Rules(), 2, 3)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(sender.flushing)
            observers = [feed.start("1-0", SEATS) for feed in feeds]
            for game, observe in zip(games, observers, strict=True):
                observe(game)
            for i in range(40):  # a move every 0.01 s
                await trio.sleep(0.01)
                for game, observe in zip(games, observers, strict=True):
                    moves(game, observe, 1)
                if i == 20:
                    for feed in feeds:
                        feed.want("1-0")
            for feed in feeds:
                feed.end("1-0", 5)
            await trio.sleep(BATCH_S)
            nursery.cancel_scope.cancel()
        for message in direct.messages:
            assert relay(message, one_by_one, "worker") is None

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    times = [t for t, _ in batches]
    assert times == pytest.approx([BATCH_S * (i + 1) for i in range(len(times))])
    assert len(times) >= 8  # 0.4 s of moves, a batch every BATCH_S, never more often
    assert sum(n for _, n in batches) == 1 + 41 + 20 + 1  # live, steps, whole, recorded
    ended_alike = [g.ended["1-0"].steps for g in (one_by_one, batched)]
    assert [s.text for s in ended_alike[0]] == [s.text for s in ended_alike[1]]
    assert len(ended_alike[0]) == 41


def test_relay_gives_a_batchs_table_end() -> None:
    async def main() -> None:
        live = LiveGames()
        step = Steps(SEATS).next(Game.new(Rules(), 2, 1))
        assert step is not None
        end = relay(("batch", [("live", "2-0", SEATS), ("step", "2-0", step, False),
                               ("void", "v3 cannot start")]), live, "worker")
        assert end == Ended("v3 cannot start")
        assert [s.text for s in live.playing["2-0"].steps] == [step.text]

    trio.run(main)


def test_the_organiser_looking_asks_the_players_of_workers_games() -> None:
    async def main() -> None:
        live = OrganisedLiveGames()
        asked: list[str] = []
        live.start("5-1", SEATS)  # a worker's game: its observer is not used here
        assert live.look("6-0") is None and asked == []  # not being played
        with players_told(live, asked.append):
            whole = live.look("5-1")
            assert whole is not None and live.look("5-1") is whole
        live.look("5-1")
        assert asked == ["5-1"]  # once, and only while the player listens
        assert is_want(("whole", "5-1")) and not is_want(("whole", "5-1", None))
        step = whole_step(0, Game.new(Rules(), 2, 2).events, SEATS)
        relay(("whole", "5-1", step), live, "worker")
        assert live.whole.playing["5-1"].steps[0].text == step.text

    trio.run(main)


def test_a_step_pickles_to_an_equal_step() -> None:
    step = Steps(SEATS).next(Game.new(Rules(), 2, 6))
    assert step is not None
    stamped = replace(step, at=2.5)
    assert pickle.loads(pickle.dumps(stamped)) == stamped
    assert pickle.loads(pickle.dumps(stamped)).text == step.text
