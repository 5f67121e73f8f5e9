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

import math
import secrets
import socket
import time
from collections import OrderedDict
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
client flooding streams ends only its own, never a bot's that is about to say Hello. (The shared
Unix socket, reached only by the referee's own bots, is under the overall cap alone.)"""
WAITING_HELLO_PER_PREFIX: Final = 32
"""Of those, from one network prefix (``prefix_of``): one client with many addresses (an IPv6
/64 has 2^64) ends its own oldest too, while a prefix still leaves room to the overall cap for
everyone else."""
WAITING_HELLO_PER_BOT: Final = 16
"""Streams waiting to say Hello on one bot's own Unix socket (``BotSockets``); a new one beyond
ends that bot's oldest. They are outside the overall cap: nothing on a bot's socket can end
another bot's stream."""
_REFUSALS_PER_S: Final = 1_000
"""Refused replies a stream may cause per second before it is closed (``ERROR_CODE_ABUSE``):
far beyond any bot's honest mistakes, and it bounds what one flooding bot takes from the other
tables (every refusal is work on the referee's one thread)."""
_ECHO_MAX: Final = 200
"""Characters of a bot's own input (a game id, a move's text) repeated in a refusal."""
BAD_TOKEN_BURST: Final = 10
BAD_TOKENS_PER_S: Final = 1.0
"""Wrong tokens a network address (or a bot's own socket) may send: ``BAD_TOKEN_BURST`` at
once, then one per second (a token bucket). A wrong token within them hears
``ERROR_CODE_BAD_TOKEN`` (a bot with a typo learns why); beyond, ``ERROR_CODE_ABUSE`` with the
time to wait. Every token is still looked up, so a right one is never refused, whoever shares
its address (a contestant behind a guesser's NAT used to be locked out): nothing that never
refuses a right token can slow a guesser's odds, since a guess and a right token look alike
until looked up; what makes guessing hopeless is the token's 128 bits or more
(``tokens.MIN_CHARS``; docs/security.md gives the numbers). The shared Unix socket is exempt:
only the bots the referee launched itself can reach it."""
PREFIX_BAD_TOKEN_BURST: Final = 30
PREFIX_BAD_TOKENS_PER_S: Final = 3.0
"""The same for a whole network prefix (``prefix_of``): three addresses' worth, so that a lab
or a NAT pool sharing a /24 is not held to one machine's budget, while one client with a
/64 of addresses is held to three."""
IPV4_PREFIX: Final = 24
IPV6_PREFIX: Final = 64
"""The prefixes limits are also kept by: an IPv6 /64 is what one subscriber or one host gets
(its 2^64 addresses cost an attacker nothing), and an IPv4 /24 is the smallest block routed on
the internet, what one organisation or cloud subnet usually holds."""
_PEERS_TRACKED: Final = 4096
"""Addresses (and prefixes, and bot sockets) whose bad tokens are remembered, each table; past
it, the least recently seen is forgotten, in constant time (it used to scan them all: ~2 ms a
wrong Hello past 4,096 addresses). A forgotten key starts again with a full burst."""


def prefix_of(peer: str) -> str:
    """A key for the network prefix ``peer`` belongs to (``IPV4_PREFIX``/``IPV6_PREFIX``; an
    IPv4-mapped IPv6 address counts as IPv4); "" for "" (a Unix socket) and for text that is
    no address. ``inet_pton`` and a shift: ``ipaddress`` took most of a wrong Hello's time."""
    try:
        packed = socket.inet_pton(socket.AF_INET6, peer)
    except OSError:
        try:
            packed = socket.inet_pton(socket.AF_INET, peer)
        except OSError:
            return ""
    else:
        if packed[:12] != _V4_MAPPED:
            return f"v6 {int.from_bytes(packed) >> (128 - IPV6_PREFIX):x}/{IPV6_PREFIX}"
        packed = packed[12:]
    return f"v4 {int.from_bytes(packed) >> (32 - IPV4_PREFIX):x}/{IPV4_PREFIX}"


_V4_MAPPED: Final = bytes(10) + b"\xff\xff"


class Buckets:
    """Token buckets by key (``burst`` at once, refilled at ``per_s``), the least recently
    touched forgotten past ``capacity``: every operation takes constant time, however many
    keys an attacker makes the hub remember."""

    __slots__ = ("_burst", "_capacity", "_levels", "_now", "_per_s")

    def __init__(self, burst: float, per_s: float, capacity: int, now: Callable[[], float]
                 ) -> None:
        self._burst, self._per_s, self._capacity, self._now = burst, per_s, capacity, now
        self._levels: OrderedDict[str, tuple[float, float]] = OrderedDict()
        """Key -> (level, when it was last set), least recently touched first."""

    def __len__(self) -> int:
        return len(self._levels)

    def level(self, key: str) -> float:
        """How many ``key`` may spend now."""
        found = self._levels.get(key)
        if found is None:
            return self._burst
        level, at = found
        return min(self._burst, level + (self._now() - at) * self._per_s)

    def wait_s(self, key: str) -> float:
        """Seconds until ``key`` may spend one again (0 when it may now)."""
        return max(0.0, (1.0 - self.level(key)) / self._per_s)

    def spend(self, key: str) -> None:
        """Take one from ``key``'s bucket."""
        self._levels[key] = (self.level(key) - 1.0, self._now())
        self._levels.move_to_end(key)
        if len(self._levels) > self._capacity:
            self._levels.popitem(last=False)


def new_session_id() -> str:
    """An opaque, random session id: a counter told a re-dialling bot how many streams (other
    bots' restarts) were opened in between."""
    return secrets.token_urlsafe(12)


@dataclass(eq=False, slots=True)
class Session:
    """One live stream from a bot process."""

    session_id: str
    compose: Composer
    close: Closer
    peer: str = ""
    """The network address the stream comes from (no port; "" for a Unix socket)."""
    bot_socket: str = ""
    """The bot whose own Unix socket the stream came in on ("" for the network and the shared
    socket): only that bot's tokens are taken on it, and its limits are that bot's."""
    prefix: str = ""
    """``prefix_of(peer)``, worked out once."""
    waits_in: tuple[str, ...] = ()
    """The keys of the waiting-for-Hello caps it counts against, until it says Hello."""
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
        clock = self._clock
        self._bad_tokens = Buckets(BAD_TOKEN_BURST, BAD_TOKENS_PER_S, _PEERS_TRACKED, clock)
        """Wrong tokens per network address, and per bot socket (``bot NAME``)."""
        self._bad_prefixes = Buckets(PREFIX_BAD_TOKEN_BURST, PREFIX_BAD_TOKENS_PER_S,
                                     _PEERS_TRACKED, clock)
        """Wrong tokens per network prefix."""
        self._sessions: dict[str, Session] = {}
        self._waiting_hello: dict[str, Session] = {}
        """Open sessions that have not said Hello, oldest first."""
        self._waiting_pool: dict[str, Session] = {}
        """Those under the overall cap (``_MAX_WAITING_HELLO``): all but bots' own sockets'."""
        self._waiting_by: dict[str, dict[str, Session]] = {}
        """Those by the key of each cap they count against (``Session.waits_in``)."""
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
    def on_open(self, compose: Composer, close: Closer, peer: str = "", bot_socket: str = ""
                ) -> Session:
        """A stream opened (from the network address ``peer``; "" when local; on the own Unix
        socket of the bot named ``bot_socket``, if any); it must say Hello first."""
        session = Session(new_session_id(), compose, close, peer, bot_socket, prefix_of(peer))
        while session.session_id in self._sessions:  # 96 random bits: never, but cheap
            session.session_id = new_session_id()
        caps = self._waiting_caps(session)
        session.waits_in = tuple(key for key, _ in caps)
        self._sessions[session.session_id] = session
        self._make_room_to_wait(caps, pooled=not bot_socket)
        self._waiting_hello[session.session_id] = session
        if not bot_socket:
            self._waiting_pool[session.session_id] = session
        for key in session.waits_in:
            self._waiting_by.setdefault(key, {})[session.session_id] = session
        return session

    @staticmethod
    def _waiting_caps(session: Session) -> list[tuple[str, int]]:
        """The caps on streams waiting for Hello that ``session`` counts against, besides the
        overall one: its bot's socket's, or its address's and its prefix's."""
        if session.bot_socket:
            return [(f"bot {session.bot_socket}", WAITING_HELLO_PER_BOT)]
        if not session.peer:
            return []
        caps = [(f"address {session.peer}", WAITING_HELLO_PER_ADDRESS)]
        if session.prefix:
            caps.append((f"prefix {session.prefix}", WAITING_HELLO_PER_PREFIX))
        return caps

    def _make_room_to_wait(self, caps: list[tuple[str, int]], pooled: bool) -> None:
        """End the oldest stream waiting to say Hello under each cap of ``caps`` that is full,
        then, for a ``pooled`` stream, the oldest of the pool if it holds
        ``_MAX_WAITING_HELLO`` (constant time: each cap keeps its own streams in order)."""
        for key, cap in caps:
            mine = self._waiting_by.get(key, {})
            if len(mine) >= cap:
                self._fatal(next(iter(mine.values())), pb.ERROR_CODE_ABUSE,
                            f"more than {cap} streams from {key.partition(' ')[2]} are "
                            "waiting to say Hello; send Hello as the first message")
        if pooled and len(self._waiting_pool) >= _MAX_WAITING_HELLO:
            self._fatal(next(iter(self._waiting_pool.values())), pb.ERROR_CODE_ABUSE,
                        f"more than {_MAX_WAITING_HELLO} streams are waiting to say Hello; "
                        "send Hello as the first message")

    def _stop_waiting(self, session: Session) -> None:
        """``session`` said Hello or ended: it no longer counts against a cap."""
        sid = session.session_id
        self._waiting_hello.pop(sid, None)
        self._waiting_pool.pop(sid, None)
        for key in session.waits_in:
            mine = self._waiting_by.get(key)
            if mine is not None:
                mine.pop(sid, None)
                if not mine:
                    del self._waiting_by[key]
        session.waits_in = ()

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
        self._stop_waiting(session)
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
        entry = self._by_digest.get(tokens.digest(hello.token))
        if session.bot_socket and entry is not None and entry.name != session.bot_socket:
            entry = None  # a bot's own socket takes only its own tokens
        if entry is None or entry.dead:
            self._bad_token(session)
            return
        old = entry.session
        entry.session, session.bot = session, entry
        self._stop_waiting(session)
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

    def _bad_token(self, session: Session) -> None:
        """Refuse a wrong token, counted against the stream's address and prefix (or its bot's
        socket): ``ERROR_CODE_BAD_TOKEN`` within their budgets, ``ERROR_CODE_ABUSE`` and the
        time to wait beyond."""
        buckets = self._bad_token_buckets(session)
        wait_s = max((b.wait_s(key) for b, key in buckets), default=0.0)
        if wait_s == 0.0:
            for bucket, key in buckets:
                bucket.spend(key)
        else:
            where = f"bot {session.bot_socket}'s socket" if session.bot_socket else (
                f"{session.peer} and its network")
            self._fatal(
                session, pb.ERROR_CODE_ABUSE,
                f"unknown token, and too many wrong tokens from {where}; wait "
                f"{math.ceil(wait_s)} s, then dial again with the CRAITS_TOKEN the referee "
                "issued for this bot (a right token is always accepted)",
            )
            return
        self._fatal(session, pb.ERROR_CODE_BAD_TOKEN,
                    "unknown token: use the CRAITS_TOKEN the referee issued for this bot")

    def _bad_token_buckets(self, session: Session) -> list[tuple[Buckets, str]]:
        """The budgets a wrong token from ``session`` is charged to (none on the shared Unix
        socket, which only the referee's own bots reach)."""
        if session.bot_socket:
            return [(self._bad_tokens, f"bot {session.bot_socket}")]
        if not session.peer:
            return []
        found = [(self._bad_tokens, session.peer)]
        if session.prefix:
            found.append((self._bad_prefixes, session.prefix))
        return found

    def _clock(self) -> float:
        """``now``, read at each call (a test may replace ``now`` on a running hub)."""
        return self.now()

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
        self._stop_waiting(session)
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
