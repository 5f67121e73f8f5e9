"""A seat played by a remote bot over the hub: requests out, replies judged, one game each.

The hub (``hub.py``) knows bots, tokens and streams and routes each reply to the seat of its
game; everything about one game's seat is here: announcing the game, filling each decision
request in place, judging replies (refusing bad or late ones in band), and the ``Mailbox`` that
hands a reply to the game task waiting for it. ``decide``, ``deliver`` and ``Mailbox`` run for
every decision: measure changes with ``benchmarks/referee_cpu_bench.py``.
"""

from __future__ import annotations

import collections
import time
from typing import TYPE_CHECKING, Any, Final

import outcome
import trio

from craits.engine import Game, IllegalMove, Move, observe
from craits.protocol import (
    ReplyError,
    add_moves,
    add_update_events,
    fill_observation,
    reply_to_move,
    rules_to_pb,
)
from craits.v1 import referee_pb2 as pb

from .seats import Decision, Seat, SeatGone, SeatResult, Table

if TYPE_CHECKING:
    from .hub import BotEntry, BotHub, Session

DISCONNECTED: Final = None
"""What the hub puts in a seat's mailbox when its bot's stream changes (gone, or replaced):
it wakes an open decision, which then looks at the bot's session again."""
INBOX_SIZE: Final = 64
"""Unread replies a seat keeps; more are refused in band, so a flooding bot cannot grow memory."""


class Mailbox:
    """Replies for one seat, and the game task waiting for the next one.

    A memory channel without its generality: one waiting task at most, parked and woken with
    ``trio.lowlevel`` directly (``put`` and ``get`` run once per decision each). A reply beyond
    ``INBOX_SIZE`` unread ones is not kept (``put`` says so, and the seat refuses it in band),
    so a flooding bot cannot grow the referee's memory; the disconnect marker is always kept.
    """

    __slots__ = ("_replies", "_waiter")

    def __init__(self) -> None:
        self._replies: collections.deque[pb.MoveReply | None] = collections.deque()
        self._waiter: trio.lowlevel.Task | None = None

    def put(self, reply: pb.MoveReply | None) -> bool:
        """Hand a reply (or the disconnect marker) to the waiting task, or keep it for later;
        False if it was dropped (the inbox was full)."""
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            trio.lowlevel.reschedule(waiter, outcome.Value(reply))
        elif reply is None or len(self._replies) < INBOX_SIZE:  # the marker is never dropped
            self._replies.append(reply)
        else:
            return False
        return True

    def drain(self) -> list[pb.MoveReply]:
        """Take every kept reply (dropping the disconnect marker, which a new decision does not
        need: it looks at the bot's session itself)."""
        replies = [r for r in self._replies if r is not None]
        self._replies.clear()
        return replies

    async def get(self) -> pb.MoveReply | None:
        """The next reply, waiting for it if none is kept (cancellable)."""
        if self._replies:
            await trio.lowlevel.checkpoint()
            return self._replies.popleft()
        self._waiter = trio.lowlevel.current_task()
        reply: pb.MoveReply | None = await trio.lowlevel.wait_task_rescheduled(self._abort)
        return reply

    def _abort(self, _: Any) -> trio.lowlevel.Abort:
        """``get`` was cancelled while waiting: forget the waiter (a method, so that waiting
        builds no closure)."""
        self._waiter = None
        return trio.lowlevel.Abort.SUCCEEDED


class RemoteSeat(Seat):
    """A seat played by a bot process over the hub (one object per game)."""

    def __init__(self, hub: BotHub, entry: BotEntry) -> None:
        self.name = entry.name
        self._hub = hub
        self._entry = entry
        self._inbox = Mailbox()
        self._table: Table | None = None
        self._seat = -1
        self._sent = 0
        self._pending: Decision | None = None
        self._asked_at = 0.0
        self._asked_on: Session | None = None
        """The stream that carried the open decision's request."""

    # ------------------------------------------------------------ hub side
    def deliver(self, reply: pb.MoveReply | None) -> None:
        """Queue a reply (or the disconnect marker) for ``decide``.

        A reply that cannot be for the open decision (none is open, or it names an older one)
        is refused at once, uncounted, so late replies never fill the inbox ahead of a good one;
        a reply beyond a full inbox is refused too, never dropped silently.
        """
        late = None if reply is None else _late(reply, self._pending)
        if reply is not None and late is not None:
            self._refuse(reply, late)
        elif not self._inbox.put(reply) and reply is not None:
            self._refuse(reply, f"dropped: {INBOX_SIZE} replies are already waiting to be judged")

    def resume(self) -> None:
        """The bot reconnected: announce the game again (the next request resends all history)
        and wake an open decision, which ``decide`` then asks again on the new stream."""
        self._sent = 0
        if self._table is not None:
            self._send(pb.RefereeMessage(game_start=self._game_start()))
        if self._pending is not None:
            self._inbox.put(DISCONNECTED)

    # ------------------------------------------------------------ seat interface
    async def start(self, table: Table, seat: int) -> None:
        """Register with the bot and announce the game."""
        self._table, self._seat = table, seat
        self._entry.seats[table.game_id] = self
        self._send(pb.RefereeMessage(game_start=self._game_start()))

    async def decide(self, decision: Decision) -> Move:
        """Send the request, then judge replies until one is valid (or the policy gives up)."""
        session = self._entry.session
        if session is None:
            raise SeatGone()
        self._refuse_unasked(decision)
        self._pending = decision
        self._asked_at = time.perf_counter()
        self._request(decision, session.compose())
        self._asked_on = session
        try:
            while True:
                reply = await self._inbox.get()
                if reply is DISCONNECTED:
                    self._ask_again(decision)
                    continue
                move = self._judge(decision, reply)
                if move is not None:
                    elapsed = time.perf_counter() - self._asked_at
                    decision.clock.last_latency_us = int(elapsed * 1e6)
                    return move
        finally:
            self._pending = None  # answered, timed out, too many bad replies, or the bot gone

    async def update(self, table: Table, seat: int, game: Game) -> None:
        """Send the public events this seat has not seen."""
        events = game.events
        if self._sent < len(events):
            start, self._sent = self._sent, len(events)
            session = self._entry.session
            if session is not None:
                update = session.compose().update
                update.game_id = table.game_id
                add_update_events(update, [e.seen_by(seat) for e in events[start:]], start)

    async def finish(self, table: Table, seat: int, result: SeatResult) -> None:
        """Send the result and forget the game (the last events went out just before, in the
        update that ``play_game`` sends when the last hand ends)."""
        self._entry.seats.pop(table.game_id, None)
        self._send(pb.RefereeMessage(game_end=pb.GameEnd(
            game_id=table.game_id, totals=result.totals, places=result.places,
            strikes=result.strikes, forfeited=result.forfeited,
        )))

    async def wait_reconnect(self, grace_s: float) -> bool:
        """Wait for the bot to come back, unless its process is known to be dead."""
        entry = self._entry
        with trio.move_on_after(grace_s):
            while entry.session is None and not entry.dead:
                await entry.connected.wait()
        return entry.session is not None and not entry.dead

    @property
    def crash_reason(self) -> str | None:
        """Why the bot's process ended, once it is known to have exited."""
        return self._entry.dead_reason if self._entry.dead else None

    # ------------------------------------------------------------ helpers
    def _ask_again(self, decision: Decision) -> None:
        """The bot's stream changed while ``decision`` was open: gone (``SeatGone``), or a new
        stream took over, which gets the request unless it already has it."""
        session = self._entry.session
        if session is None:
            raise SeatGone()
        if session is not self._asked_on:
            self._request(decision, session.compose())
            self._asked_on = session

    def _refuse_unasked(self, decision: Decision) -> None:
        """Refuse, uncounted, the replies kept from before ``decision`` was asked: one naming it
        was sent before the bot could know it (a guess at the next id and move, sent with the
        answer to the previous decision), and must not be taken as its answer."""
        for early in self._inbox.drain():
            self._refuse(early, f"decision {early.decision_id} had not been asked when this "
                         "reply arrived (replies are refused until their request is sent)")

    def _judge(self, decision: Decision, reply: pb.MoveReply) -> Move | None:
        """The reply's move if valid; otherwise reject it in band and return None."""
        if reply.decision_id != decision.decision_id:
            late = _late(reply, decision)
            if late is not None:
                self._reject(decision, reply, late, counted=False)
                return None
            reason = (f"decision {reply.decision_id} is not open; the open decision is "
                      f"{decision.decision_id}")
        else:
            try:
                move = reply_to_move(reply, decision.legal)
                decision.validate(move)
                return move
            except (ReplyError, IllegalMove) as exc:
                reason = str(exc)
        self._reject(decision, reply, reason, counted=True)
        return None

    def _reject(self, decision: Decision, reply: pb.MoveReply, reason: str, counted: bool) -> None:
        """Tell the bot why its reply was refused; counted refusals may end in a strike.

        ``retries_left`` is about the decision the rejection names: 0 when that is not the open
        one (a late reply, an id never asked), so a bot that resends while it is positive never
        resends to a closed decision.
        """
        try:
            if counted:
                decision.reject(reason)
        finally:
            named_open = reply.decision_id == decision.decision_id
            self._refuse(reply, reason, decision.retries_left if named_open else 0)

    def _refuse(self, reply: pb.MoveReply, reason: str, retries_left: int = 0) -> None:
        session = self._entry.session
        if session is not None:
            self._hub.refuse(session, reply, reason, retries_left)

    def _request(self, decision: Decision, msg: pb.RefereeMessage) -> None:
        """Fill ``msg`` with the decision request, in place (nested messages passed to
        constructors are copied, and this runs for every decision)."""
        game = decision.game
        obs = observe(game, decision.seat, self._sent)
        self._sent = len(game.events)
        table = decision.table
        req = msg.decision
        req.game_id = table.game_id
        req.decision_id = decision.decision_id
        fill_observation(req.observation, obs)
        add_moves(req, decision.legal)
        req.move_ms = table.time_for(decision.seat).move_ms
        req.bank_ms = int(decision.clock.bank_ms)
        req.last_latency_us = decision.clock.last_latency_us

    def _game_start(self) -> pb.GameStart:
        table = self._table
        assert table is not None
        return pb.GameStart(
            game_id=table.game_id,
            seat=self._seat,
            players=[pb.Player(seat=i, name=n) for i, n in enumerate(table.players)],
            rules=rules_to_pb(table.rules),
            time_control=pb.TimeControl(move_ms=table.time_for(self._seat).move_ms,
                                        bank_ms=table.time_for(self._seat).bank_ms),
        )

    def _send(self, msg: pb.RefereeMessage) -> None:
        session = self._entry.session
        if session is not None:
            session.send(msg)


def _late(reply: pb.MoveReply, open_decision: Decision | None) -> str | None:
    """Why ``reply`` is late (it names a decision before the open one, or none is open), or
    None. A late reply is refused without counting: it is a closed decision's answer."""
    if open_decision is None:
        return (f"decision {reply.decision_id} is not open; no decision is open for this seat "
                "(late reply ignored)")
    if reply.decision_id < open_decision.decision_id:
        return (f"decision {reply.decision_id} is not open; the open decision is "
                f"{open_decision.decision_id} (late reply ignored)")
    return None
