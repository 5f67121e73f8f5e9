"""The games being played now as the organiser may see them: every event, hands and draws
included, kept apart from the spectators' public steps (``live.py``).

Why apart, not a second list on each ``LiveGame``: what a spectator's page or stream may carry
is decided by what it can reach. ``OrganisedLiveGames`` is the contest's ``LiveGames`` (its
``playing`` and ``ended`` games hold public steps only, exactly as before, and every public
page reads only those) with one more attribute, ``whole``: the same games, by the same keys,
with every card. Only the organiser's pages (``web/organiser.py``, behind the organiser's
token) read ``whole``.

The whole steps are made where the game is played, as the public ones are (``WholeSteps``
beside ``live.PublicSteps``): by the observer ``start`` returns, for a table the service plays
itself, or by the table worker (``tableworker.SentFeed``), which sends them beside the public
ones. A whole game is kept only while it is played: once it is over, its recorded page
(``/games/ID``) shows everything from the store, so ended whole games are not kept in memory.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from craits.engine import Event, Game
from craits.words import Voice, describe_all

from .live import LiveGame, LiveGames, Step


def whole_step(index: int, events: Sequence[Event], seats: Sequence[str]) -> Step:
    """``events`` as they are (every card), and told in words."""
    lines = tuple(describe_all(events, Voice(seats, past=True)))
    text = json.dumps({"i": index, "events": [e.to_dict() for e in events],
                       "lines": list(lines)})
    return Step(index, (), lines, text)


@dataclass(slots=True)
class WholeSteps:
    """A game in play, one whole step per call: the events since the last call."""

    seats: tuple[str, ...]
    seen: int = 0
    made: int = 0

    def next(self, game: Game) -> Step | None:
        """The new events of ``game`` as the next step; None when there are none."""
        new = game.events[self.seen:]
        self.seen = len(game.events)
        if not new:
            return None
        self.made += 1
        return whole_step(self.made - 1, new, self.seats)


class WholeGames(LiveGames):
    """The organiser's games: ``LiveGames`` fed whole steps (``step``), none kept once ended
    (a stream following one is still told the end)."""

    def end(self, key: str, game: int | None) -> None:
        live = self.playing.pop(key, None)
        if live is not None:
            live.end(game)

    def get(self, key: str) -> LiveGame | None:
        return self.playing.get(key)


class OrganisedLiveGames(LiveGames):
    """The contest's live games: the public ones, as ``LiveGames`` keeps them, and ``whole``,
    the same games with every card for the organiser (module doc)."""

    def __init__(self) -> None:
        super().__init__()
        self.whole = WholeGames()

    def start(self, key: str, seats: Sequence[str]) -> Callable[[Game], None]:
        public = super().start(key, seats)
        self.whole.start(key, seats)
        steps = WholeSteps(tuple(seats))

        def observe(game: Game) -> None:
            public(game)
            self.whole.step(key, steps.next(game), game.is_over)

        return observe

    def end(self, key: str, game: int | None) -> None:
        super().end(key, game)
        self.whole.end(key, game)


def add_whole_step(live: LiveGames, key: str, step: Step) -> None:
    """A whole step of game ``key`` made where it is played (a table worker's), kept if
    ``live`` keeps whole games (``OrganisedLiveGames``)."""
    if isinstance(live, OrganisedLiveGames):
        live.whole.step(key, step, False)
