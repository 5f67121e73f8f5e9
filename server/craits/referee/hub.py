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

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

import trio

from craits.protocol import PROTOCOL_VERSION
from craits.text import printable
from craits.v1 import referee_pb2 as pb

from . import tokens
from .remote_seat import DISCONNECTED, RemoteSeat

Composer = Callable[[], pb.RefereeMessage]
"""Queues a new, empty message on a session's stream and returns it, to be filled in place at
once: the stream sends it when the current trio pass ends, so a message is never copied into
the packet that carries it (never blocks)."""
Closer = Callable[[], None]
"""Ends a session's stream."""

_MAX_WAITING_HELLO: Final = 64
"""Streams that have not said Hello yet; a new one beyond this ends the oldest, so streams that
never say Hello cannot use up the server's streams and lock real bots out."""
WAITING_HELLO_PER_ADDRESS: Final = 16
"""Of those, from one network address; a new one beyond this ends that address's oldest, so one
client flooding streams ends only its own, never a bot's that is about to say Hello. (The Unix
socket, reached only by the referee's own bots, is under the overall cap alone.)"""
_REFUSALS_PER_S: Final = 1_000
"""Refused replies a stream may cause per second before it is closed (``ERROR_CODE_ABUSE``):
far beyond any bot's honest mistakes, and it bounds what one flooding bot takes from the other
tables (every refusal is work on the referee's one thread)."""
_ECHO_MAX: Final = 200
"""Characters of a bot's own input (a game id, a move's text) repeated in a refusal."""
BAD_TOKEN_BURST: Final = 10
BAD_TOKENS_PER_S: Final = 1.0
"""Hellos with a wrong token a network address may send: ``BAD_TOKEN_BURST`` at once, then
one per second (a token bucket). Beyond that its Hellos are refused unread
(``ERROR_CODE_ABUSE``) until the bucket refills: a bot with a typo in its token still hears
why, while guessing (~300 tries a second without it) is held to one try a second. Streams on
the referee's Unix socket are exempt: only the bots it launched can reach that socket."""
_PEERS_TRACKED: Final = 4096
"""Addresses whose bad tokens are remembered; beyond, the fullest-recovered are forgotten."""


@dataclass(eq=False, slots=True)
class Session:
    """One live stream from a bot process."""

    session_id: str
    compose: Composer
    close: Closer
    peer: str = ""
    """The network address the stream comes from (no port; "" for the Unix socket)."""
    bot: BotEntry | None = None
    ended: bool = False
    """Set once the hub has ended the stream: what it still receives is ignored."""
    refusal_window: float = 0.0
    """Start of the current second of refusals (``BotHub.now``)."""
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
    """The token, when the hub issued it or was given it (to hand to the bot); "" when only
    its digest is known."""
    token_digest: str = ""
    session: Session | None = None
    seats: dict[str, RemoteSeat] = field(default_factory=dict)
    dead: bool = False
    """Set when the bot's process is known to have exited: no reconnect to wait for."""
    dead_reason: str = ""
    connected: trio.Event = field(default_factory=trio.Event)
    """Set (then replaced) whenever the bot connects or disconnects: waiters re-check."""

    def changed(self) -> None:
        """Wake whoever waits on ``connected`` and arm a fresh event for the next change."""
        self.connected.set()
        self.connected = trio.Event()


class BotHub:
    """All remote bots and their sessions. Create inside a trio run."""

    def __init__(self, now: Callable[[], float] = time.monotonic) -> None:
        self.now = now
        """The clock of the bad-token buckets and the refusals per second (a test may set a
        fake one: those limits are logic, whatever the time a real dial takes)."""
        self._by_digest: dict[str, BotEntry] = {}
        self._bad_tokens: dict[str, tuple[float, float]] = {}
        """Per address: the bad-token bucket's level and when it was last updated."""
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
        """Register a bot and return its entry: with a fresh random token unless one is given,
        or only a token's ``tokens.digest``. ``tokens.TokenError`` if a given token is short or
        already another bot's."""
        if not token:
            token = tokens.issue()
        if tokens.is_digest(token):
            entry = BotEntry(name=name, token="", token_digest=token)
        else:
            tokens.check(token)
            entry = BotEntry(name=name, token=token, token_digest=tokens.digest(token))
        if entry.token_digest in self._by_digest:
            raise tokens.TokenError(f"bot {name!r} has the token of bot "
                                    f"{self._by_digest[entry.token_digest].name!r}")
        self._by_digest[entry.token_digest] = entry
        return entry

    def seat_for(self, entry: BotEntry) -> RemoteSeat:
        """A new seat played by this bot (one per game)."""
        return RemoteSeat(self, entry)

    def mark_dead(self, entry: BotEntry, reason: str) -> None:
        """The bot's process exited: its seats stop waiting for it."""
        entry.dead, entry.dead_reason = True, printable(reason)  # it may quote the bot's stderr
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

    def waiting_for_hello(self) -> int:
        """How many open streams have not said Hello yet."""
        return len(self._waiting_hello)

    def close_all(self) -> None:
        """Tell every bot the referee is shutting down (so it exits instead of re-dialling)."""
        for session in list(self._sessions.values()):
            self._fatal(session, pb.ERROR_CODE_SHUTDOWN, "the referee is shutting down; goodbye")

    # ------------------------------------------------------------ callbacks from the bridge
    def on_open(self, compose: Composer, close: Closer, peer: str = "") -> Session:
        """A stream opened (from the network address ``peer``; "" when local); it must say
        Hello first."""
        session = Session(f"s{next(self._ids)}", compose, close, peer)
        self._sessions[session.session_id] = session
        self._make_room_to_wait(peer)
        self._waiting_hello[session.session_id] = session
        return session

    def _make_room_to_wait(self, peer: str) -> None:
        """End the oldest stream waiting to say Hello from ``peer`` if it has
        ``WAITING_HELLO_PER_ADDRESS``, else the oldest of all if there are
        ``_MAX_WAITING_HELLO``."""
        waiting = self._waiting_hello.values()
        mine = [s for s in waiting if s.peer == peer] if peer else []
        if len(mine) >= WAITING_HELLO_PER_ADDRESS:
            oldest, limit = mine[0], f"{WAITING_HELLO_PER_ADDRESS} from {peer}"
        elif len(waiting) >= _MAX_WAITING_HELLO:
            oldest, limit = next(iter(waiting)), str(_MAX_WAITING_HELLO)
        else:
            return
        self._fatal(oldest, pb.ERROR_CODE_ABUSE, f"more than {limit} streams are waiting to "
                    "say Hello; send Hello as the first message")

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

    def on_hello_timeout(self, session: Session) -> None:
        """The stream's time to say Hello is over (``listener.HELLO_TIMEOUT_S``): end it unless
        it did."""
        if session.bot is None:
            self._fatal(session, pb.ERROR_CODE_PROTOCOL,
                        "no Hello in time: send Hello as the first message")

    def on_close(self, session: Session) -> None:
        """A stream ended (cleanly or not)."""
        self._sessions.pop(session.session_id, None)
        self._waiting_hello.pop(session.session_id, None)
        self._detach(session)

    # ------------------------------------------------------------ handlers
    def _on_hello(self, session: Session, msg: pb.BotMessage) -> None:
        hello = msg.hello
        if session.bot is not None:
            self._fatal(session, pb.ERROR_CODE_PROTOCOL, "second Hello on one stream")
            return
        if hello.protocol_version != PROTOCOL_VERSION:
            self._fatal(
                session, pb.ERROR_CODE_UNSUPPORTED_VERSION,
                f"protocol_version {hello.protocol_version} unsupported; this referee speaks "
                f"{PROTOCOL_VERSION}",
            )
            return
        if not self._may_try_token(session.peer):
            self._fatal(
                session, pb.ERROR_CODE_ABUSE,
                f"too many wrong tokens from {session.peer}; wait a few seconds, then dial "
                "again with the CRAITS_TOKEN the referee issued for this bot",
            )
            return
        entry = self._by_digest.get(tokens.digest(hello.token))
        if entry is None or entry.dead:
            self._count_bad_token(session.peer)
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
        entry.changed()

    def _may_try_token(self, peer: str) -> bool:
        """Whether ``peer`` has a bad-token try left in its bucket (``BAD_TOKEN_BURST``)."""
        return not peer or self._bucket(peer) >= 1.0

    def _count_bad_token(self, peer: str) -> None:
        if not peer:
            return
        level = self._bucket(peer) - 1.0
        if len(self._bad_tokens) >= _PEERS_TRACKED and peer not in self._bad_tokens:
            fullest = max(self._bad_tokens, key=self._bucket)
            del self._bad_tokens[fullest]
        self._bad_tokens[peer] = (level, self.now())

    def _bucket(self, peer: str) -> float:
        """How many bad tokens ``peer`` may send now (refilled at ``BAD_TOKENS_PER_S``)."""
        level, at = self._bad_tokens.get(peer, (float(BAD_TOKEN_BURST), 0.0))
        refilled = level + (self.now() - at) * BAD_TOKENS_PER_S
        return min(float(BAD_TOKEN_BURST), refilled)

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
        now = self.now()
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
        self._detach(session)

    def _detach(self, session: Session) -> None:
        """The session's bot loses it, if it is still the bot's current session (a replaced
        stream closing later must not disconnect its successor)."""
        entry = session.bot
        if entry is not None and entry.session is session:
            entry.session = None
            self._disconnect(entry)

    def _disconnect(self, entry: BotEntry) -> None:
        """Wake every open decision of the bot (``decide`` then sees it gone) and its waiters."""
        for seat in entry.seats.values():
            seat.deliver(DISCONNECTED)
        entry.changed()


def _echo(text: str) -> str:
    """A bot's own input, quoted and cut short, for a message back to it."""
    return repr(text if len(text) <= _ECHO_MAX else text[:_ECHO_MAX] + "...")
