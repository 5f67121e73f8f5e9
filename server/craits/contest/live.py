"""The games being played now, as spectators may see them: public events only, until the end.

The ladder's referee tells an observer the live game after every move (``play_game``'s
``watch``, set per job through ``LocalTables.watch``); the observer keeps, of each new event,
only ``Event.seen_by(SPECTATOR)``: the engine's own redaction, for a viewer who holds no seat,
so every deal and draw loses its cards (how many there were stays) and the stock order, never
logged, cannot leak. Nothing else of the game is kept here: no hand, no stock, no state, so
no page, stream or API answer built from ``LiveGames`` can show a hidden card, whatever it
renders. Whole hands are for the game's page (``/games/ID``), which exists only once the game
is recorded, that is over.

Readers join at any moment: each gets the public steps so far, then every new one as it comes
(one ``trio.Event`` per game, replaced after each change, wakes them all), then an explicit end
(with the recorded game's id, or none when the game was not recorded). Everything runs in the
service's one trio thread: the referee's task appends (or, when a table worker process plays the
game, the task that reads the worker's messages: the worker makes the public steps itself with
``Steps``, so hidden cards never reach the service's feed), the readers' tasks read.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

import trio

from craits.engine import Event, Game
from craits.words import Voice, describe_all

SPECTATOR: Final = -1
"""The viewer no seat is: ``Event.seen_by`` removes the cards of every private event for it."""
ENDED_KEPT: Final = 100
"""How many ended games are remembered at most (so a page opened just after the end links the
game)."""
ENDED_TEXT: Final = 8_000_000
"""And at most this many characters of their steps' JSON (``Step.text``; the newest ended game
is kept whatever its size): a game's length depends on the rules and the seats (a default game
of 2-4 seats is about 1,000 steps and 170,000 characters), so a count alone bounds no memory.
A kept step costs about 2.8 times its text (the text, its lines, the objects), so ended games
hold at most about 23 MB; games still being played hold what their rules' turn caps allow."""


@dataclass(frozen=True, slots=True)
class Step:
    """What one move (or the deal) made public: the events, redacted, and them in words."""

    index: int
    events: tuple[dict[str, Any], ...]
    """Empty once ``text`` is made (``public_step``): the events are kept once, as JSON in the
    text, not also as dicts (which took half a kept step's memory)."""
    lines: tuple[str, ...]
    text: str = ""
    """``to_dict`` as JSON text, made once (``public_step``): every reader sends the same."""
    at: float = 0.0
    """When the service got it (``trio.current_time()``, stamped by ``LiveGame.add``): with a
    live delay (``[web] live_delay_s``) spectators are shown it once it is that old."""

    def __reduce__(self) -> tuple[type[Step], tuple[Any, ...]]:
        """Pickled as a call of the constructor: a table worker sends the service every step,
        and the dataclass's own pickling of a frozen class with slots (a ``__setstate__`` that
        reads ``fields()`` for each step) took twice as long to load, in the web process."""
        return (Step, (self.index, self.events, self.lines, self.text, self.at))

    def to_dict(self) -> dict[str, Any]:
        """The JSON form the stream sends (read back from ``text`` once it is made)."""
        if self.text:
            form: dict[str, Any] = json.loads(self.text)
            return form
        return {"i": self.index, "events": list(self.events), "lines": list(self.lines)}


@dataclass
class LiveGame:
    """One game being played: its seats' names and its public steps so far."""

    key: str
    seats: tuple[str, ...]
    steps: list[Step] = field(default_factory=list)
    over: bool = False
    game: int | None = None
    """The recorded game's id, once it is recorded."""
    ended: bool = False
    ended_at: float = 0.0
    """When it ended (``trio.current_time()``): delayed spectators are told this much later."""
    number: int = 0
    """Its place in the order the games started (``LiveGames.starts``): the TV's newest."""
    changed: trio.Event = field(default_factory=trio.Event)
    encoded: dict[tuple[int, int], bytes] = field(default_factory=dict, repr=False)
    """Stream messages of this game's steps FIRST..LAST, encoded once and sent to every reader
    at that point (``web.live.stream``: readers that join or wake together are sent the same
    bytes). Steps are only ever appended, so a message never goes stale; emptied when a step
    comes or the game ends, and nothing is added once it has ended, so it holds only messages
    up to the newest step of a game in play, one per point some reader was at."""
    public: Steps = field(init=False)
    """The game's events made public steps of so far (``Steps``)."""

    def __post_init__(self) -> None:
        self.public = Steps(self.seats)

    def observe(self, game: Game) -> None:
        """The referee's ``watch``: the new events, redacted, as one step."""
        self.add(self.public.next(game), game.is_over)

    def add(self, step: Step | None, over: bool) -> None:
        """One more public step (None: nothing new), made here or by the worker process that
        plays the game (``LiveGames.step``)."""
        self.over = over
        if step is not None:
            self.steps.append(replace(step, at=trio.current_time()))
            self._wake()

    def end(self, game: int | None) -> None:
        """The game is recorded as ``game`` (None: it was not, e.g. a bot failed to start)."""
        self.game, self.ended, self.ended_at = game, True, trio.current_time()
        self._wake()

    def _wake(self) -> None:
        self.encoded.clear()
        self.changed.set()
        self.changed = trio.Event()

    async def follow(self) -> AsyncGenerator[list[Step] | None]:
        """Every step from the first, then the new ones as they come, then None: the end.
        The steps are given in batches, all those not yet given at once: a reader joining
        midway gets the game so far in one message, not hundreds."""
        sent = 0
        while True:
            changed = self.changed
            if sent < len(self.steps):
                batch = self.steps[sent:]
                sent += len(batch)
                yield batch
                continue  # steps made while the reader was away come before the end
            if self.ended:
                yield None
                return
            await changed.wait()


def public_step(index: int, events: Sequence[Event], seats: Sequence[str]) -> Step:
    """``events`` as a spectator may see them (``SPECTATOR``), and told in words."""
    public = [e.seen_by(SPECTATOR) for e in events]
    step = Step(index, tuple(e.to_dict() for e in public),
                tuple(describe_all(public, Voice(seats, past=True))))
    return Step(step.index, (), step.lines, json.dumps(step.to_dict()))


StepMaker = Callable[[int, Sequence[Event], Sequence[str]], Step]
"""Makes step ``index`` of some events of a game between ``seats``: ``public_step``, or the
organiser's ``livewhole.whole_step``."""


@dataclass(slots=True)
class Steps:
    """A game in play made steps of, one per call: the events since the last call, made a step
    by ``make``. Spectators' steps (``public_step``, the default) are made where the game is
    played, so that a table worker process (``tableworker``) sends the service these and never a
    hidden card; the organiser's are made by ``livewhole.whole_step``, every card. A first call
    made late (an organiser who looks at a game midway) gets everything since the start as one
    step."""

    seats: tuple[str, ...]
    make: StepMaker = public_step
    seen: int = 0
    """Events of the game's log already made steps of."""
    made: int = 0

    def next(self, game: Game) -> Step | None:
        """The new events of ``game`` as the next step; None when there are none."""
        new = game.events[self.seen:]
        self.seen = len(game.events)
        if not new:
            return None
        self.made += 1
        return self.make(self.made - 1, new, self.seats)


class LiveGames:
    """The games being played now, by key, and the last ``ENDED_KEPT`` that ended, as many of
    them as ``ENDED_TEXT`` allows."""

    def __init__(self) -> None:
        self.playing: dict[str, LiveGame] = {}
        self.ended: OrderedDict[str, LiveGame] = OrderedDict()
        self.ended_text = 0
        """The characters of the kept ended games' steps (``Step.text``)."""
        self.keep_s = 0.0
        """Ended games younger than this are kept beyond the bounds: the spectators' delay
        (``[web] live_delay_s``), during which a game's end is not shown yet and its page must
        still be there. What that holds is the delay's worth of ended games."""
        self.started = trio.Event()
        """Set when a game starts, then replaced: the TV (``web.live.on_air``) waits on it
        while no game is played."""
        self.starts = 0
        """Games started so far: each game's ``LiveGame.number``."""

    def start(self, key: str, seats: Sequence[str]) -> Callable[[Game], None]:
        """A new live game; returns its observer for the referee."""
        self.starts += 1
        live = LiveGame(key, tuple(seats), number=self.starts)
        self.playing[key] = live
        self.started.set()
        self.started = trio.Event()
        return live.observe


    def step(self, key: str, step: Step | None, over: bool) -> None:
        """A public step of game ``key``, made where it is played (``Steps``); a game
        not started here (or already ended) is ignored."""
        live = self.playing.get(key)
        if live is not None:
            live.add(step, over)

    def end(self, key: str, game: int | None) -> None:
        """Game ``key`` ended (recorded as ``game``, or not at all)."""
        live = self.playing.pop(key, None)
        if live is None:
            return
        live.end(game)
        again = self.ended.pop(key, None)  # a table replayed after its worker died
        self.ended_text += text_of(live) - (0 if again is None else text_of(again))
        self.ended[key] = live
        while len(self.ended) > 1 and (len(self.ended) > ENDED_KEPT
                                       or self.ended_text > ENDED_TEXT) \
                and next(iter(self.ended.values())).ended_at + self.keep_s \
                <= trio.current_time():
            self.ended_text -= text_of(self.ended.popitem(last=False)[1])

    def end_all(self, prefix: str) -> None:
        """End every game whose key starts with ``prefix`` that is still open (a table that
        stopped early: its games will not be recorded now)."""
        for key in [k for k in self.playing if k.startswith(prefix)]:
            self.end(key, None)

    def get(self, key: str) -> LiveGame | None:
        """A game being played, or one that ended lately."""
        return self.playing.get(key) or self.ended.get(key)


def text_of(game: LiveGame) -> int:
    """The characters of a game's steps (what ``ENDED_TEXT`` counts)."""
    return sum(len(step.text) for step in game.steps)
