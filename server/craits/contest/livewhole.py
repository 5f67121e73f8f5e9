"""The games being played now as the organiser may see them: every event, hands and draws
included, kept apart from the spectators' public steps (``live.py``).

Why apart, not a second list on each ``LiveGame``: what a spectator's page or stream may carry
is decided by what it can reach. ``OrganisedLiveGames`` is the contest's ``LiveGames`` (its
``playing`` and ``ended`` games hold public steps only, exactly as before, and every public
page reads only those) with one more attribute, ``whole``: the same games, by the same keys,
with every card. Only the organiser's pages (``web/organiser.py``, behind the organiser's
token) read ``whole``.

The whole steps are made where the game is played, as the public ones are (``live.Steps``
with ``whole_step``): by the observer ``start`` returns, for a table the service plays itself,
or by the table worker (``tableworker.SentFeed``), which sends them beside the public ones.

**Only for the games the organiser looks at.** Making and sending a whole step costs what a
public one does, so making them for every game doubled the live traffic of every move while,
nearly always, no organiser watched. So a game's whole steps are made once the organiser looks
at it (``look``: its page or its stream), from then to its end, the first of them holding
everything since the deal (so the organiser still sees the game from its start): at once for
a game played in this process; for a table worker's, the players told (``players_told``: each
table worker while it plays) ask their worker, which makes that first step when it gets the
message. A whole game is kept only while it is played: once it is over, its recorded page
(``/games/ID``) shows everything from the store, so ended whole games are not kept in memory.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from craits.engine import Event, Game
from craits.words import Voice, describe_all

from .live import LiveGame, LiveGames, Step, Steps


def whole_step(index: int, events: Sequence[Event], seats: Sequence[str]) -> Step:
    """``events`` as they are (every card), and told in words."""
    lines = tuple(describe_all(events, Voice(seats, past=True)))
    text = json.dumps({"i": index, "events": [e.to_dict() for e in events],
                       "lines": list(lines)})
    return Step(index, (), lines, text)


class WholeGames(LiveGames):
    """The organiser's games: ``LiveGames`` fed whole steps (``step``), none kept once ended
    (a stream following one is still told the end)."""

    def end(self, key: str, game: int | None) -> None:
        live = self.playing.pop(key, None)
        if live is not None:
            live.end(game)

    def get(self, key: str) -> LiveGame | None:
        return self.playing.get(key)


@dataclass(slots=True)
class _Played:
    """A game played in this process: its whole steps (made once it is looked at) and the
    game as last observed (for the first of them)."""

    steps: Steps
    game: Game | None = None


class OrganisedLiveGames(LiveGames):
    """The contest's live games: the public ones, as ``LiveGames`` keeps them, and ``whole``,
    the same games with every card for the organiser, for those the organiser looks at (module
    doc)."""

    def __init__(self) -> None:
        super().__init__()
        self.whole = WholeGames()
        self.looked: set[str] = set()
        """The games being played that the organiser has looked at."""
        self._played: dict[str, _Played] = {}
        self._players: list[Callable[[str], None]] = []

    def start(self, key: str, seats: Sequence[str]) -> Callable[[Game], None]:
        public = super().start(key, seats)
        self.whole.start(key, seats)
        played = self._played[key] = _Played(Steps(tuple(seats), whole_step))

        def observe(game: Game) -> None:
            public(game)
            played.game = game
            if key in self.looked:
                self._whole_step(key, played)

        return observe

    def _whole_step(self, key: str, played: _Played) -> None:
        if played.game is not None:
            self.whole.step(key, played.steps.next(played.game), played.game.is_over)

    def look(self, key: str) -> LiveGame | None:
        """The organiser looks at game ``key``: its whole game (None when it is not being
        played), whose steps are made from now on, the first with everything so far."""
        game = self.whole.get(key)
        if game is not None and key not in self.looked:
            self.looked.add(key)
            played = self._played.get(key)
            if played is not None:
                self._whole_step(key, played)
            for ask in self._players:
                ask(key)
        return game

    def end(self, key: str, game: int | None) -> None:
        super().end(key, game)
        self.whole.end(key, game)
        self.looked.discard(key)
        self._played.pop(key, None)


@contextmanager
def players_told(live: LiveGames, ask: Callable[[str], None]) -> Iterator[None]:
    """While the body runs, ``ask`` is called with each game the organiser starts to look at
    (``OrganisedLiveGames.look``): a table worker's, which asks its worker for that game's
    whole steps. Nothing for a ``LiveGames`` that keeps no whole games."""
    if not isinstance(live, OrganisedLiveGames):
        yield
        return
    live._players.append(ask)
    try:
        yield
    finally:
        live._players.remove(ask)


def add_whole_step(live: LiveGames, key: str, step: Step) -> None:
    """A whole step of game ``key`` made where it is played (a table worker's), kept if
    ``live`` keeps whole games (``OrganisedLiveGames``)."""
    if isinstance(live, OrganisedLiveGames):
        live.whole.step(key, step, False)
