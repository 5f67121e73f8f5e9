"""The in-process lane: an SDK ``Bot`` played inside the process that referees its tables.

A ``python = "module:Class"`` bot is a class, not a program: the pool makes one instance per
process that plays tables (as one bot process would run one instance over gRPC), and ``BotSeat``
plays a seat of one game with it, straight from the engine's observation: no gRPC, no protobuf,
no other process. The bot sees what a bot process sees (a ``View`` with the game's real id,
players, history and clocks, the same hooks in the same order), so a deterministic bot plays
every game the same way in either lane.

The same failure policy applies, with one difference forced by Python: a call cannot be
pre-empted, so a move that takes longer than the seat's time is known only when it returns. It is
then charged after the fact (``AnswerTooLate``: a timeout, as the referee would have ruled at the
deadline), and the table, with every other table of the process, waited for it. An exception
from ``decide`` is a recorded fault (a strike), and an illegal move is refused and asked again,
as over the wire. In-process bots are trusted code: they run in the organiser's process, with
its files, its network and its store (``docs/security.md``).
"""

from __future__ import annotations

import importlib
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from craits.engine import Event, Game, IllegalMove, Move, observe
from craits.referee.seats import AnswerTooLate, Decision, Seat, SeatResult, Table
from craits_sdk import Bot, GameInfo, GameResult, Rejection, View


class BotLoadError(Exception):
    """A ``module:Class`` that does not name an SDK ``Bot`` this process can make."""


def load_bot(target: str, search: Path | None = None) -> Bot:
    """A new instance of the ``Bot`` subclass ``target`` (``module:Class``) names.

    ``search`` (the tournament's directory) is put on the import path first, so a strategy kept
    beside the tournament file imports as it would from there.
    """
    module_name, _, class_name = target.partition(":")
    if not module_name or not class_name:
        raise BotLoadError(f"{target!r} is not module:Class (e.g. mybots.smart:SmartBot)")
    if search is not None and str(search) not in sys.path:
        sys.path.insert(0, str(search))
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except ImportError as exc:
        raise BotLoadError(f"cannot import {module_name!r} ({exc}): install it, or keep it in "
                           "the tournament's directory") from None
    except AttributeError:
        raise BotLoadError(f"module {module_name!r} has no {class_name!r}") from None
    if not (isinstance(cls, type) and issubclass(cls, Bot)):
        raise BotLoadError(f"{target} is not a subclass of craits_sdk.Bot")
    try:
        return cls()
    except Exception as exc:
        raise BotLoadError(f"{target}() failed: {type(exc).__name__}: {exc}") from None


class BotSeat(Seat):
    """One seat of one game, played by a ``Bot`` instance shared with the process's other tables."""

    def __init__(self, name: str, bot: Bot) -> None:
        self.name = name
        self._bot = bot
        self._game: GameInfo | None = None
        self._engine: Game | None = None
        """The game's engine state, seen at the last decision or update (its last events are
        added to the bot's history at the end, as a ``GameEnd`` would carry them)."""

    async def start(self, table: Table, seat: int) -> None:
        """Tell the bot a game begins, with what a bot process's ``GameStart`` would say."""
        self._game = GameInfo(table.game_id, seat, table.players, table.rules,
                              table.time.move_ms, table.time.bank_ms)
        self._bot.on_game_start(self._game)

    async def decide(self, decision: Decision) -> Move:
        """The bot's move, asked again after each refusal, then judged for time (see module)."""
        game, self._engine = self._info(), decision.game
        obs = observe(decision.game, decision.seat, game.next_index)
        added = game.record(obs.events, obs.events_from)
        view = View.of(obs, game, added, decision_id=decision.decision_id,
                       move_ms=decision.table.time.move_ms, bank_ms=int(decision.clock.bank_ms))
        allowed_s = decision.clock.allowance_s(decision.table.time)
        started = time.perf_counter()
        while True:
            move = self._bot.move_for(view)
            elapsed_s = time.perf_counter() - started
            if elapsed_s > allowed_s:
                raise AnswerTooLate(elapsed_s, allowed_s)
            try:
                decision.validate(move)
                return move
            except IllegalMove as exc:
                decision.reject(str(exc))
                view = view.with_rejection(Rejection(str(exc), decision.retries_left, move))

    async def update(self, table: Table, seat: int, game: Game) -> None:
        """A hand ended: its public events, as a bot process would get them."""
        self._engine = game
        added = self._catch_up(game.events, seat)
        if added and getattr(self._bot.on_update, "__func__", None) is not Bot.on_update:
            self._bot.on_update(table.game_id, self._info().latest(added))

    async def finish(self, table: Table, seat: int, result: SeatResult) -> None:
        """The game is over: the bot's ``on_game_end``."""
        game = self._info()
        if self._engine is not None:
            self._catch_up(self._engine.events, seat)
        self._bot.on_game_end(GameResult(table.game_id, seat, result.totals, result.places,
                                         result.strikes, result.forfeited, game))

    def _catch_up(self, events: Sequence[Event], seat: int) -> int:
        game = self._info()
        start = game.next_index
        return game.record([e.seen_by(seat) for e in events[start:]], start)

    def _info(self) -> GameInfo:
        assert self._game is not None, "a seat was used before its game started"
        return self._game
