"""One game behind the pipe: its child process and the order in which the child hears about it.

Each game has its own task reading its own inbox, so a slow child delays only its own game and
the child always sees its game's messages in the order the referee sent them. The game keeps the
history cursor (events the child has been given, by log index: nothing twice after a reconnect,
and what arrived in ``GameUpdate`` goes out with the next decision) and the open decision (what a
rejection refers to, and the reply re-sent if the referee repeats a request after a reconnect).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any, Final

from craits.engine import Event, Rules, preset
from craits.protocol import event_from_pb, rules_from_pb
from craits.v1 import referee_pb2 as pb

from .child import Child, ChildGone, child_env
from .lines import answer_reply, decision_line, rejected_line

LOG: Final = logging.getLogger("craits.pipe")

Send = Callable[[pb.BotMessage], None]
"""Queues one reply for the referee (never blocks)."""
Stop = Callable[[str], None]
"""Stops the whole pipe, saying why: the command cannot run, so no game can be played."""
Inbound = pb.DecisionRequest | pb.MoveRejected | pb.GameUpdate
"""The messages a game's task handles, in arrival order."""


@dataclass(frozen=True, slots=True)
class ChildSpec:
    """How to start the child of every game."""

    argv: tuple[str, ...]
    stderr: IO[Any] | None
    """Where children write their stderr (``None``: inherit the pipe's)."""
    env: Mapping[str, str]
    """The environment children start from (the pipe's own, normally)."""


@dataclass(frozen=True, slots=True)
class _Open:
    """The decision last answered: what a rejection or a re-sent request refers to."""

    decision_id: int
    legal_moves: tuple[str, ...]
    answer: str
    reply: pb.BotMessage


class PipeGame:
    """A game's child, history cursor and open decision, driven by one task (``run``)."""

    def __init__(self, start: pb.GameStart, spec: ChildSpec, send: Send, stop: Stop) -> None:
        self.game_id = start.game_id
        self.seat = start.seat
        self.rules = _rules_of(start)
        self._spec = spec
        self._send = send
        self._stop = stop
        self.inbox: asyncio.Queue[Inbound] = asyncio.Queue()
        self.child: Child | None = None
        self._gone: str | None = None
        """Why the child cannot answer, once that is known; sent in its place."""
        self._next_index = 0
        self._held: list[tuple[int, Event]] = []
        self._open: _Open | None = None

    async def run(self) -> None:
        """Start the child, then handle the inbox in order until cancelled at the game's end."""
        await self._start_child()
        while True:
            msg = await self.inbox.get()
            try:
                await _HANDLERS[type(msg)](self, msg)
            except Exception:  # a bug here must cost one message, not the game
                LOG.exception("game %s: could not handle %s", self.game_id, type(msg).__name__)

    async def close(self) -> None:
        """Close the child's stdin and wait for it to exit (killed if it lingers)."""
        if self.child is not None:
            status = await self.child.close()
            LOG.info("game %s: pipe bot exited with status %d", self.game_id, status)

    # ------------------------------------------------------------ handlers
    async def _on_decision(self, req: pb.DecisionRequest) -> None:
        if self._open is not None and self._open.decision_id == req.decision_id:
            self._send(self._open.reply)  # the referee repeats a request after a reconnect
            return
        self._record(req.observation.events)
        events, first = self._take_held()
        try:
            line = decision_line(req, self.rules, events, first)
        except ValueError as exc:
            LOG.error("game %s: unreadable decision request (%s); answering index 0",
                      self.game_id, exc)
            self._answer(req.decision_id, (), "0")
            return
        answer = await self._ask(line)
        if answer is not None:
            self._answer(req.decision_id, tuple(line["legal_moves"]), answer)

    async def _on_rejected(self, msg: pb.MoveRejected) -> None:
        LOG.warning("game %s decision %d: answer refused: %s (%d retries left)",
                    self.game_id, msg.decision_id, msg.reason, msg.retries_left)
        prior = self._open
        if prior is None or prior.decision_id != msg.decision_id or msg.retries_left == 0:
            return  # a stale refusal, or the decision is closed: no answer is wanted
        answer = await self._ask(rejected_line(msg, prior.answer, prior.legal_moves))
        if answer is not None:
            self._answer(msg.decision_id, prior.legal_moves, answer)

    async def _on_update(self, msg: pb.GameUpdate) -> None:
        self._record(msg.events)  # held until the next decision goes to the child

    # ------------------------------------------------------------ helpers
    async def _start_child(self) -> None:
        env = child_env(self._spec.env, self.game_id, self.seat)
        try:
            self.child = await Child.start(self._spec.argv, self._spec.stderr, env)
        except ChildGone as exc:
            self._gone = str(exc)
            self._stop(self._gone)

    async def _ask(self, line: dict[str, Any]) -> str | None:
        """The child's answer; once it is gone, the reason, which the referee will refuse.

        ``None`` (no answer at all) when the command cannot run: the pipe is stopping, and the
        referee should see a bot that ended, not an error message passed off as a move.
        """
        if self._gone is None and self.child is not None:
            answer = await self.child.ask(line)
            if answer is not None:
                return answer
            self._gone = await self.child.gone_reason()
            if self.child.cannot_run:
                self._stop(self._gone)
            else:
                LOG.error("game %s: %s; its seat cannot play on", self.game_id, self._gone)
        if self.child is None or self.child.cannot_run:
            return None
        return self._gone or "(no pipe bot)"

    def _answer(self, decision_id: int, legal_moves: tuple[str, ...], answer: str) -> None:
        reply = answer_reply(answer, self.game_id, decision_id)
        self._open = _Open(decision_id, legal_moves, answer, reply)
        self._send(reply)

    def _record(self, events: Sequence[pb.Event]) -> None:
        """Hold the events the child has not been given (each log index once)."""
        for e in events:
            if e.index >= self._next_index:
                self._held.append((e.index, event_from_pb(e)))
                self._next_index = e.index + 1

    def _take_held(self) -> tuple[list[Event], int]:
        """The held events and the log index of the first (the cursor when there are none)."""
        held, self._held = self._held, []
        first = held[0][0] if held else self._next_index
        return [e for _, e in held], first


_HANDLERS: Final[dict[type[Inbound], Callable[[PipeGame, Any], Awaitable[None]]]] = {
    pb.DecisionRequest: PipeGame._on_decision,
    pb.MoveRejected: PipeGame._on_rejected,
    pb.GameUpdate: PipeGame._on_update,
}
"""Inbox message type -> its handler (the inbox holds only these three)."""


def _rules_of(start: pb.GameStart) -> Rules:
    """The game's rules; standard ones (with an error logged) if the message carries none."""
    if not start.HasField("rules"):
        return preset("standard")
    try:
        return rules_from_pb(start.rules)
    except ValueError as exc:
        LOG.error("game %s: unreadable rules (%s); assuming standard", start.game_id, exc)
        return preset("standard")
