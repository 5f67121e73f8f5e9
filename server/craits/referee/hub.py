"""Remote bots: tokens, sessions, and routing replies from the wire to the seats waiting for them.

Runs in the one thread that trio and grpc.aio share (``bridge``). The gRPC bridge calls
``on_open``/``on_packet``/``on_close`` as plain synchronous calls and gives each session a
non-blocking ``compose`` (a new message queued on the stream, filled in place); a reply wakes
its waiting game through trio's own rescheduling. A bot is known by the token the hub issued
for it; one bot process may hold seats in many games at once over its single stream. When a
bot reconnects with its token, the new session replaces the old one and every live game is
re-announced (``GameStart`` with the full history on the next request), so a pending decision
continues where it stopped.
"""

from __future__ import annotations

import collections
import itertools
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

import outcome
import trio

from craits.engine import Game, IllegalMove, Move, observe
from craits.protocol import (
    PROTOCOL_VERSION,
    ReplyError,
    add_moves,
    add_update_events,
    fill_observation,
    reply_to_move,
    rules_to_pb,
)
from craits.v1 import referee_pb2 as pb

from .seats import Decision, Seat, SeatGone, SeatResult, Table

Composer = Callable[[], pb.RefereeMessage]
"""Queues a new, empty message on a session's stream and returns it, to be filled in place at
once: the stream sends it when the current trio pass ends, so a message is never copied into
the packet that carries it (never blocks)."""
Closer = Callable[[], None]
"""Ends a session's stream."""

_DISCONNECTED: Final = None
_INBOX_SIZE: Final = 64
_MAX_WAITING_HELLO: Final = 64
"""Streams that have not said Hello yet; a new one beyond this ends the oldest, so streams that
never say Hello cannot use up the server's streams and lock real bots out."""
_REFUSALS_PER_S: Final = 1_000
"""Refused replies a stream may cause per second before it is closed (``ERROR_CODE_ABUSE``):
far beyond any bot's honest mistakes, and it bounds what one flooding bot takes from the other
tables (every refusal is work on the referee's one thread)."""
_ECHO_MAX: Final = 200
"""Characters of a bot's own input (a game id, a move's text) repeated in a refusal."""


@dataclass(eq=False, slots=True)
class Session:
    """One live stream from a bot process."""

    session_id: str
    compose: Composer
    close: Closer
    bot: BotEntry | None = None
    ended: bool = False
    """Set once the hub has ended the stream: what it still receives is ignored."""
    refusal_window: float = 0.0
    """Start of the current second of refusals (``time.monotonic``)."""
    refusals: int = 0
    """Refusals in that second."""

    def send(self, msg: pb.RefereeMessage) -> None:
        """Queue a copy of a message built elsewhere (for the few that are not per decision)."""
        self.compose().CopyFrom(msg)


@dataclass(eq=False, slots=True)
class BotEntry:
    """A bot the hub issued a token for, and the seats it currently holds."""

    name: str
    token: str
    session: Session | None = None
    seats: dict[str, RemoteSeat] = field(default_factory=dict)
    dead: bool = False
    """Set when the bot's process is known to have exited: no reconnect to wait for."""
    dead_reason: str = ""
    connected: trio.Event = field(default_factory=trio.Event)
    """Set (then replaced) whenever the bot connects or disconnects: waiters re-check."""


class BotHub:
    """All remote bots and their sessions. Create inside a trio run."""

    def __init__(self) -> None:
        self._by_token: dict[str, BotEntry] = {}
        self._sessions: dict[str, Session] = {}
        self._waiting_hello: dict[str, Session] = {}
        """Open sessions that have not said Hello, oldest first."""
        self._ids = itertools.count(1)
        self._handlers: dict[str, Callable[[Session, pb.BotMessage], None]] = {
            "hello": self._on_hello,
            "move": self._on_move,
        }

    # ------------------------------------------------------------ tokens and seats
    def issue_token(self, name: str, token: str | None = None) -> BotEntry:
        """Register a bot and return its entry (with a fresh random token unless one is given)."""
        entry = BotEntry(name=name, token=token or secrets.token_urlsafe(18))
        self._by_token[entry.token] = entry
        return entry

    def seat_for(self, entry: BotEntry) -> RemoteSeat:
        """A new seat played by this bot (one per game)."""
        return RemoteSeat(self, entry)

    def mark_dead(self, entry: BotEntry, reason: str) -> None:
        """The bot's process exited: its seats stop waiting for it."""
        entry.dead, entry.dead_reason = True, reason
        if entry.session is not None:
            entry.session.close()
        self._disconnect(entry)

    async def wait_connected(self, entry: BotEntry, timeout_s: float) -> bool:
        """Wait until the bot has connected once (False on timeout or if it died)."""
        with trio.move_on_after(timeout_s):
            while not entry.dead:
                if entry.session is not None:
                    return True
                await entry.connected.wait()
        return entry.session is not None

    def close_all(self) -> None:
        """Tell every bot the referee is shutting down (so it exits instead of re-dialling)."""
        for session in list(self._sessions.values()):
            self._fatal(session, pb.ERROR_CODE_SHUTDOWN, "the referee is shutting down; goodbye")

    # ------------------------------------------------------------ callbacks from the bridge
    def on_open(self, compose: Composer, close: Closer) -> Session:
        """A stream opened; it must say Hello first."""
        session = Session(f"s{next(self._ids)}", compose, close)
        self._sessions[session.session_id] = session
        if len(self._waiting_hello) >= _MAX_WAITING_HELLO:
            oldest = next(iter(self._waiting_hello.values()))
            self._fatal(oldest, pb.ERROR_CODE_ABUSE,
                        f"more than {_MAX_WAITING_HELLO} streams are waiting to say Hello; "
                        "send Hello as the first message")
        self._waiting_hello[session.session_id] = session
        return session

    def on_packet(self, session: Session, packet: pb.BotPacket) -> None:
        """Handle every message of a packet in order, by its ``oneof`` case."""
        for msg in packet.messages:
            if session.ended:
                return
            case = msg.WhichOneof("payload")
            handler = self._handlers.get(case or "")
            if handler is None:
                self._fatal(session, pb.ERROR_CODE_PROTOCOL, "empty or unknown message")
                return
            handler(session, msg)

    def on_malformed(self, session: Session, problem: str) -> None:
        """A packet could not be parsed: say so in band, then end the stream."""
        self._fatal(session, pb.ERROR_CODE_PROTOCOL, f"malformed packet: {problem[:_ECHO_MAX]}")

    def on_close(self, session: Session) -> None:
        """A stream ended (cleanly or not)."""
        self._sessions.pop(session.session_id, None)
        self._waiting_hello.pop(session.session_id, None)
        entry = session.bot
        if entry is not None and entry.session is session:
            entry.session = None
            self._disconnect(entry)

    # ------------------------------------------------------------ handlers
    def _on_hello(self, session: Session, msg: pb.BotMessage) -> None:
        hello = msg.hello
        if session.bot is not None:
            self._fatal(session, pb.ERROR_CODE_PROTOCOL, "second Hello on one stream")
            return
        if hello.protocol_version != PROTOCOL_VERSION:
            self._fatal(
                session, pb.ERROR_CODE_UNSUPPORTED_VERSION,
                f"protocol_version {hello.protocol_version} unsupported; this referee speaks 1",
            )
            return
        entry = self._by_token.get(hello.token)
        if entry is None or entry.dead:
            self._fatal(
                session, pb.ERROR_CODE_BAD_TOKEN,
                "unknown token: use the CRAITS_TOKEN the referee issued for this bot",
            )
            return
        old = entry.session
        entry.session, session.bot = session, entry
        self._waiting_hello.pop(session.session_id, None)
        if old is not None:
            old.bot = None
            self._fatal(old, pb.ERROR_CODE_REPLACED,
                        "a newer stream said Hello with this bot's token and took over its games")
        session.send(pb.RefereeMessage(welcome=pb.Welcome(
            protocol_version=PROTOCOL_VERSION, bot_name=entry.name, session_id=session.session_id,
        )))
        for seat in entry.seats.values():
            seat.resume()
        entry.connected.set()
        entry.connected = trio.Event()

    def _on_move(self, session: Session, msg: pb.BotMessage) -> None:
        entry = session.bot
        if entry is None:
            self._fatal(session, pb.ERROR_CODE_PROTOCOL, "the first message must be Hello")
            return
        reply = msg.move
        seat = entry.seats.get(reply.game_id)
        if seat is None:
            self.refuse(session, reply, f"no live game {_echo(reply.game_id)} for this bot")
            return
        seat.deliver(reply)

    def refuse(self, session: Session, reply: pb.MoveReply, reason: str, retries_left: int = 0
               ) -> None:
        """Send a ``MoveRejected`` for ``reply``; a stream refused more than ``_REFUSALS_PER_S``
        times in a second is ended instead (``ERROR_CODE_ABUSE``)."""
        if session.ended:
            return
        now = time.monotonic()
        if now - session.refusal_window >= 1.0:
            session.refusal_window, session.refusals = now, 0
        session.refusals += 1
        if session.refusals > _REFUSALS_PER_S:
            self._fatal(session, pb.ERROR_CODE_ABUSE,
                        f"more than {_REFUSALS_PER_S} refused replies in one second")
            return
        if len(reason) > 2 * _ECHO_MAX:
            reason = reason[: 2 * _ECHO_MAX] + "..."
        session.send(pb.RefereeMessage(rejected=pb.MoveRejected(
            game_id=reply.game_id[:_ECHO_MAX], decision_id=reply.decision_id,
            reason=reason, retries_left=retries_left,
        )))

    def _fatal(self, session: Session, code: pb.ErrorCode.ValueType, message: str) -> None:
        """Send the stream an ``Error`` and end it; nothing it sends afterwards is handled.

        Its bot is detached at once rather than when the stream has closed: until then, requests
        would go on being queued behind the ``Error`` and time out unanswered, charged as
        strikes instead of the grace period of a bot that is away.
        """
        if session.ended:
            return
        session.ended = True
        self._waiting_hello.pop(session.session_id, None)
        session.send(pb.RefereeMessage(error=pb.Error(code=code, message=message)))
        session.close()
        entry = session.bot
        if entry is not None and entry.session is session:
            entry.session = None
            self._disconnect(entry)

    def _disconnect(self, entry: BotEntry) -> None:
        for seat in entry.seats.values():
            seat.deliver(_DISCONNECTED)
        entry.connected.set()
        entry.connected = trio.Event()


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


def _echo(text: str) -> str:
    """A bot's own input, quoted and cut short, for a message back to it."""
    return repr(text if len(text) <= _ECHO_MAX else text[:_ECHO_MAX] + "...")


class Mailbox:
    """Replies for one seat, and the game task waiting for the next one.

    A memory channel without its generality: one waiting task at most, parked and woken with
    ``trio.lowlevel`` directly (``put`` and ``get`` run once per decision each). A reply beyond
    ``_INBOX_SIZE`` unread ones is not kept (``put`` says so, and the seat refuses it in band),
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
        elif reply is None or len(self._replies) < _INBOX_SIZE:  # the marker is never dropped
            self._replies.append(reply)
        else:
            return False
        return True

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
            self._refuse(reply, f"dropped: {_INBOX_SIZE} replies are already waiting to be judged")

    def resume(self) -> None:
        """The bot reconnected: announce the game again (the next request resends all history)
        and wake an open decision, which ``decide`` then asks again on the new stream."""
        self._sent = 0
        if self._table is not None:
            self._send(pb.RefereeMessage(game_start=self._game_start()))
        if self._pending is not None:
            self._inbox.put(_DISCONNECTED)

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
        self._pending = decision
        self._asked_at = time.perf_counter()
        self._request(decision, session.compose())
        self._asked_on = session
        try:
            while True:
                reply = await self._inbox.get()
                if reply is _DISCONNECTED:
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
        req.move_ms = table.time.move_ms
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
            time_control=pb.TimeControl(move_ms=table.time.move_ms, bank_ms=table.time.bank_ms),
        )

    def _send(self, msg: pb.RefereeMessage) -> None:
        session = self._entry.session
        if session is not None:
            session.send(msg)
