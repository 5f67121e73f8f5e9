"""The live feed's memory is bounded: ended games are kept by count (``ENDED_KEPT``) and by
the size of their steps (``ENDED_TEXT``), and a kept step holds its events once, as JSON."""

from __future__ import annotations

import json
from collections.abc import Callable

import trio
import trio.testing

from craits.contest import live as live_module
from craits.contest.live import ENDED_KEPT, ENDED_TEXT, SPECTATOR, LiveGames, Step, public_step
from craits.engine import Game, Rules

SEATS = ("ann v1", "bob v1")


def test_a_step_keeps_its_events_once_as_json() -> None:
    events = Game.new(Rules(), 2, 7).events  # the deal: private events with cards
    step = public_step(0, events, SEATS)
    assert step.events == ()  # no dicts beside the text
    assert step.to_dict() == json.loads(step.text)
    assert step.to_dict()["events"] == [e.seen_by(SPECTATOR).to_dict() for e in events]
    assert step.lines and step.to_dict()["lines"] == list(step.lines)


def play(live: LiveGames, key: str, steps: int, chars: int) -> None:
    """Game ``key`` of ``steps`` steps of ``chars`` characters each, started and ended."""
    live.start(key, SEATS)
    for i in range(steps):
        live.step(key, Step(i, (), (), "x" * chars), over=False)
    live.end(key, 1)


def bounded(body: Callable[[LiveGames], None]) -> None:
    """Run ``body(live)`` in trio (``LiveGame`` stamps times with trio's clock)."""
    async def main() -> None:
        body(LiveGames())

    trio.run(main, clock=trio.testing.MockClock())


def test_at_most_ended_kept_games_are_remembered() -> None:
    def body(live: LiveGames) -> None:
        for n in range(ENDED_KEPT + 5):
            play(live, f"1-{n}", 3, 10)
        assert len(live.ended) == ENDED_KEPT
        assert live.get("1-4") is None and live.get("1-5") is not None  # oldest gone first
        assert live.ended_text == ENDED_KEPT * 3 * 10
        assert not live.playing

    bounded(body)


def test_ended_games_are_bounded_by_their_steps_text() -> None:
    per_game = ENDED_TEXT // 4 + 1  # four such games are over the budget, three are not

    def body(live: LiveGames) -> None:
        for n in range(6):
            play(live, f"2-{n}", 10, per_game // 10 + 1)
            assert live.ended_text <= ENDED_TEXT
            assert live.ended_text == sum(len(s.text) for g in live.ended.values()
                                          for s in g.steps)
        assert list(live.ended) == ["2-3", "2-4", "2-5"]
        play(live, "3-0", 1, ENDED_TEXT + 1)  # bigger than the budget alone: still kept
        assert list(live.ended) == ["3-0"] and live.get("3-0") is not None

    bounded(body)


def test_a_replayed_game_is_counted_once() -> None:
    def body(live: LiveGames) -> None:
        play(live, "4-0", 2, 100)
        play(live, "4-0", 3, 100)  # its table replayed after a worker died
        assert len(live.ended) == 1 and live.ended_text == 300
        assert live_module.text_of(live.ended["4-0"]) == 300

    bounded(body)
