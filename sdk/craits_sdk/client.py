"""The connection loop: one grpc.aio stream to the referee, re-dialled with backoff when it drops.

The loop is the same for every bot process that speaks the protocol through this package: it
drives anything shaped like ``SessionLike`` (the SDK's ``Session`` for a Python bot, the pipe's
``PipeSession`` in ``craits.pipebot``), which holds the protocol state that outlives a connection.
Replies a session returns from ``handle`` go back at once, all answers to one packet in one packet:
a gRPC hop costs far more than a decision, so batching is the cheap way to be fast. A session whose
answers come later (from child processes) puts them in its ``outbox``; a writer task sends
whatever is ready there as one packet, so the stream's reader never waits for an answer.

The loop ends only on a fatal ``Error`` from the referee, on an RPC status that retrying cannot
fix, when the referee stays unreachable for ``attempts`` dials in a row, at the first failed dial
when the referee's port speaks TLS and the bot does not or the reverse (``tlsprobe``: no later
dial could succeed, and the user learns what to set), or (if asked) when the referee ends the
stream cleanly; ``serve`` and ``serve_session`` return the exit status the process
should end with (the ``EXIT_*`` constants).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import os
import socket
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

import grpc
import grpc.aio

from craits.v1 import referee_pb2 as pb
from craits.v1 import referee_pb2_grpc

from . import tlsprobe
from .bot import Bot
from .session import LOG, RefereeError, Session

EXIT_OK: Final = 0
"""The referee shut down cleanly."""
EXIT_FAILURE: Final = 1
"""A protocol error, or a server that is not a Craits referee."""
EXIT_REFUSED: Final = 2
"""The referee refused this bot: bad token or unsupported protocol version (or a usage error)."""
EXIT_UNREACHABLE: Final = 3
"""The referee could not be reached, or stayed away after the stream dropped."""

_FATAL_STATUS: Final = {
    grpc.StatusCode.UNAUTHENTICATED: EXIT_REFUSED,
    grpc.StatusCode.PERMISSION_DENIED: EXIT_REFUSED,
    grpc.StatusCode.UNIMPLEMENTED: EXIT_FAILURE,
}
"""RPC statuses that another dial would only repeat."""

_ERROR_EXIT: Final = {
    pb.ERROR_CODE_BAD_TOKEN: EXIT_REFUSED,
    pb.ERROR_CODE_UNSUPPORTED_VERSION: EXIT_REFUSED,
    pb.ERROR_CODE_SHUTDOWN: EXIT_OK,
}

_RETRIED_ON_REDIAL: Final = frozenset({pb.ERROR_CODE_BAD_TOKEN, pb.ERROR_CODE_ABUSE})
"""Errors retried (with backoff) once this bot has been welcomed (``_on_referee_error``)."""
_RETRIED_ALWAYS: Final = frozenset({pb.ERROR_CODE_ABUSE})
"""Errors retried (with backoff, as failed dials) even before any Welcome: what others did
(streams flooded or wrong tokens sent from this bot's address) and a wait can mend."""
ALLOW_PLAINTEXT: Final = "CRAITS_ALLOW_PLAINTEXT"
"""Set to 1 to let a bot send its token in plain text to a referee beyond this machine."""

_Call = grpc.aio.StreamStreamCall[pb.BotPacket, pb.RefereePacket]


DEFAULT_ATTEMPTS: Final = 8
"""Failed dials in a row before a bot gives up: with the backoff below, about 16 s of trying, so
that a bot outlasts a referee's restart (``craits pipe`` uses the same number)."""


@dataclass(frozen=True, slots=True)
class Options:
    """Where to connect and how hard to try."""

    server: str
    """The referee's ``host:port``, or ``unix:PATH`` (a sandboxed bot's only way out)."""
    token: str
    """The token the referee issued for this bot."""
    attempts: int = DEFAULT_ATTEMPTS
    """Failed dials in a row before giving up, at least 1 (a stream that drops after its Welcome
    is not a failed dial: the count restarts at each Welcome)."""
    backoff_s: float = 0.2
    """Wait before the first re-dial; doubles after each failed one."""
    max_backoff_s: float = 5.0
    tls: bool = False
    """Dial over TLS (``CRAITS_TLS_CA`` set, or a ``tls://``/``https://`` ``CRAITS_SERVER``)."""
    ca_pem: bytes | None = None
    """The CA certificates a TLS referee's certificate must chain to (None: the system's)."""

    def channel(self) -> grpc.aio.Channel:
        """A new channel to the referee, over TLS when asked."""
        if not self.tls:
            return grpc.aio.insecure_channel(self.server)
        return grpc.aio.secure_channel(
            self.server, grpc.ssl_channel_credentials(root_certificates=self.ca_pem))

    @staticmethod
    def resolve(server: str | None, token: str | None, attempts: int) -> Options:
        """Options from command-line values, falling back on ``CRAITS_SERVER``/``CRAITS_TOKEN``.

        ``ValueError`` says what is missing and how to give it, for every command that connects.
        """
        source = "--server" if server else "CRAITS_SERVER"
        server = server or os.environ.get("CRAITS_SERVER")
        token = token if token is not None else os.environ.get("CRAITS_TOKEN")
        if not server:
            raise ValueError("no referee address: pass --server HOST:PORT or set CRAITS_SERVER")
        server, tls = _scheme(server)
        check_address(server, source)
        if not token:
            raise ValueError("no bot token: pass --token TOKEN or set CRAITS_TOKEN")
        if attempts < 1:
            raise ValueError(f"--attempts must be at least 1, got {attempts}")
        ca_pem = _read_ca(os.environ.get("CRAITS_TLS_CA", ""))
        if server.startswith("unix:"):  # a sandbox's socket never leaves the machine
            tls, ca_pem = False, None
        tls = tls or ca_pem is not None
        if not tls and os.environ.get(ALLOW_PLAINTEXT, "") != "1":
            check_plaintext(server, source)
        return Options(server=server, token=token, attempts=attempts, tls=tls, ca_pem=ca_pem)


def check_plaintext(address: str, source: str = "--server") -> None:
    """``ValueError`` saying what to set when a plain-text dial to ``address`` would carry the
    token beyond this machine (anything but ``unix:``, loopback, or an address of this
    machine's own, whose packets never leave it).

    The token is a bot's whole identity: sent in plain text it is readable on the path, and
    whoever answers at the address (a typo, a spoofed name, a hostile network) gets it. TLS is
    what proves the referee is the organiser's, so a remote dial must be TLS unless its user
    says otherwise (``CRAITS_ALLOW_PLAINTEXT=1``).
    """
    if address.startswith("unix:"):
        return
    host = address.rpartition(":")[0]
    if is_this_machine(host):
        return
    raise ValueError(
        f"{source} {address!r} is beyond this machine and the dial is plain text: this bot "
        f"will not send its token where anyone on the path can read it. Dial over TLS: "
        f"CRAITS_SERVER=tls://{address} (checked against this system's CAs), or "
        "CRAITS_TLS_CA=FILE naming the CA certificate the organiser gave you (`craits serve` "
        f"prints it); or, on a network you trust, set {ALLOW_PLAINTEXT}=1"
    )


def is_this_machine(host: str) -> bool:
    """Whether every address ``host`` names is this machine's: loopback, the unspecified
    address (which dials this machine), or one an own socket can bind to (an address of one
    of its interfaces: the kernel keeps such traffic on the machine)."""
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return False
    return bool(infos) and all(_own_address(str(info[4][0]), info[0]) for info in infos)


def _own_address(text: str, family: int) -> bool:
    try:
        address = ipaddress.ip_address(text.partition("%")[0])
    except ValueError:
        return False
    if address.is_loopback or address.is_unspecified:
        return True
    with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.bind((text, 0))
        return True
    return False


TLS_SCHEMES: Final = ("tls://", "https://")
"""A ``CRAITS_SERVER`` starting with one of these is dialled over TLS."""


def _scheme(server: str) -> tuple[str, bool]:
    """The address without a TLS scheme, and whether it had one."""
    for scheme in TLS_SCHEMES:
        if server.startswith(scheme):
            return server.removeprefix(scheme).rstrip("/"), True
    return server, False


def _read_ca(path: str) -> bytes | None:
    """The PEM file ``CRAITS_TLS_CA`` names (None when unset), or a ``ValueError`` saying why it
    cannot be used."""
    if not path:
        return None
    try:
        pem = open(path, "rb").read()  # noqa: SIM115 (read whole at once)
    except OSError as exc:
        raise ValueError(f"CRAITS_TLS_CA {path!r}: cannot read it ({exc.strerror or exc})"
                         ) from None
    if b"-----BEGIN CERTIFICATE-----" not in pem:
        raise ValueError(f"CRAITS_TLS_CA {path!r} holds no PEM certificate")
    return pem


MAX_PORT: Final = 65_535


def check_address(address: str, source: str = "--server") -> None:
    """``ValueError`` unless ``address`` is ``HOST:PORT`` with a port from 1 to 65535, or
    ``unix:PATH`` with an absolute path (how a referee reaches a bot in a sandbox).

    grpc dials whatever it is given: a port past 65535 wraps (``:99999`` dialled 34463), and an
    address with no port or a non-numeric one failed each dial until the attempts ran out, so a
    typo looked like a referee that is down. ``source`` names where the address came from.
    """
    if address.startswith("unix:"):
        if not address.startswith("unix:/"):
            raise ValueError(f"{source} {address!r}: a Unix socket address is unix:/ABSOLUTE/PATH")
        return
    host, _, port = address.rpartition(":")
    valid = (
        host.strip() != "" and not any(c.isspace() for c in host)
        and port.isascii() and port.isdigit() and 1 <= int(port) <= MAX_PORT
    )
    if not valid:
        raise ValueError(f"{source} {address!r} is not HOST:PORT with a port from 1 to {MAX_PORT}"
                         " (or unix:/PATH)")


class SessionLike(Protocol):
    """What the connection loop needs of a bot process's protocol state (kept across dials)."""

    @property
    def welcome(self) -> pb.Welcome | None:
        """The current connection's ``Welcome``; ``None`` until it arrives."""

    @property
    def ever_welcomed(self) -> bool:
        """Whether any connection was welcomed (a refused token is then retried, not fatal)."""

    @property
    def outbox(self) -> asyncio.Queue[pb.BotMessage] | None:
        """Replies that become ready outside ``handle``; ``None`` when ``handle`` returns all."""

    def hello(self, token: str) -> pb.BotPacket:
        """The first packet of a new connection (forgets the previous connection's welcome)."""

    def handle(self, packet: pb.RefereePacket) -> Sequence[pb.BotMessage]:
        """Handle a packet's messages in order; return the replies to send now, in one packet.

        Raises ``RefereeError`` on a fatal ``Error``.
        """


class _Fatal(Exception):
    """Stop now with this exit status."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


async def serve(bot: Bot, options: Options) -> int:
    """Play for ``bot`` until the referee ends it; return the process exit status."""
    return await serve_session(Session(bot), options)


async def serve_session(
    session: SessionLike,
    options: Options,
    *,
    log: logging.Logger = LOG,
    exit_at_end_of_stream: bool = False,
) -> int:
    """Connect ``session`` to the referee, re-dialling as needed; return the exit status.

    ``log``: where the loop says what happens to the connection. ``exit_at_end_of_stream``: a
    stream the referee ends with status OK ends the process (``EXIT_OK``) instead of being
    re-dialled.
    """
    failed = 0  # dials in a row that were not welcomed
    welcomed = False  # once the referee has welcomed us, it is "gone", not "unreachable"
    while True:
        try:
            reason = await _connect_once(session, options, log, exit_at_end_of_stream)
        except _Fatal as fatal:
            return fatal.status
        lost = session.welcome is not None
        welcomed = welcomed or lost
        failed = 0 if lost else failed + 1
        if failed >= options.attempts:
            _log_gave_up(log, options.server, reason, failed, welcomed)
            return EXIT_UNREACHABLE
        delay = min(options.max_backoff_s, options.backoff_s * 2 ** (failed + welcomed - 1))
        _log_redial(log, options, reason, failed, delay)
        await asyncio.sleep(delay)


def _log_redial(
    log: logging.Logger, options: Options, reason: str, failed: int, delay: float
) -> None:
    """The warning before a re-dial: a stream that dropped, or the ``failed``-th failed dial."""
    if failed == 0:
        log.warning("lost the connection to the referee at %s (%s); re-dialling in %.1f s",
                    options.server, reason, delay)
    else:
        log.warning("cannot reach the referee at %s (%s); re-dialling in %.1f s "
                    "(failed dial %d of %d)", options.server, reason, delay, failed,
                    options.attempts)


def _log_gave_up(
    log: logging.Logger, server: str, reason: str, failed: int, welcomed: bool
) -> None:
    """The last word: a referee that never answered is unreachable, one that did is gone."""
    referee = f"the referee at {server}"
    where = f"{referee} is gone" if welcomed else f"cannot reach {referee}"
    log.error("%s (%s); gave up after %d failed dials in a row", where, reason, failed)


async def _connect_once(
    session: SessionLike, options: Options, log: logging.Logger, exit_at_end: bool
) -> str:
    """Run one connection to its end; return why it ended, or raise ``_Fatal``."""
    try:
        async with options.channel() as channel:
            call = referee_pb2_grpc.RefereeStub(channel).Connect(None)
            await call.write(session.hello(options.token))
            await _play(session, call)
    except RefereeError as err:
        return _on_referee_error(session, err, log)
    except grpc.aio.AioRpcError as err:
        status = _FATAL_STATUS.get(err.code())
        if status is not None:
            log.error("the server at %s refused the stream: %s", options.server, err.details())
            raise _Fatal(status) from None
        if err.code() == grpc.StatusCode.UNAVAILABLE and not session.ever_welcomed:
            # a referee that welcomed us spoke our way; one that never did may not
            hint = await tlsprobe.mismatch(options.server, options.tls, err.details() or "")
            if hint is not None:  # no dial can succeed until the bot is set up the other way
                log.error("%s", hint)
                raise _Fatal(EXIT_UNREACHABLE) from None
        return f"{err.code().name}: {err.details()}"
    except asyncio.InvalidStateError:
        return "the stream ended while the bot was answering"
    if exit_at_end:
        log.info("the referee closed the stream")
        raise _Fatal(EXIT_OK)
    return "the referee closed the stream"


async def _play(session: SessionLike, call: _Call) -> None:
    """Answer packets until the stream ends; a failed write ends it too (with its error).

    The reader writes each packet's replies itself, and waits for the write: a writer task fed
    by a queue, so that the reader never waits, made packets no fuller (the referee sends a
    table's next request only after the reply) and cost a task switch per packet. Only a
    session with an ``outbox`` has a writer task, and then the two take turns with a lock.
    """
    outbox = session.outbox
    writing = asyncio.Lock() if outbox is not None else None

    async def read() -> None:
        while True:
            packet = await call.read()
            if not isinstance(packet, pb.RefereePacket):
                return  # grpc.aio.EOF: the referee finished the stream with status OK
            replies = session.handle(packet)
            if not replies:
                continue
            if writing is None:
                await call.write(pb.BotPacket(messages=replies))
            else:
                async with writing:
                    await call.write(pb.BotPacket(messages=replies))

    async def send_later(outbox: asyncio.Queue[pb.BotMessage], writing: asyncio.Lock) -> None:
        while True:
            batch = [await outbox.get()]
            while not outbox.empty():
                batch.append(outbox.get_nowait())
            async with writing:
                await call.write(pb.BotPacket(messages=batch))

    if outbox is None or writing is None:
        await read()
    else:
        await _until_one_ends(read(), send_later(outbox, writing))


async def _until_one_ends(*work: Coroutine[Any, Any, None]) -> None:
    """Run ``work`` side by side until one ends; cancel the rest and raise what it raised."""
    tasks = [asyncio.ensure_future(w) for w in work]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    for task in done:
        task.result()


def _on_referee_error(session: SessionLike, err: RefereeError, log: logging.Logger) -> str:
    """Decide what a fatal ``Error`` means for this process.

    A bad token on a re-dial is retried: the referee may not yet have noticed that this bot's
    previous stream is dead and still count the token as in use. ``ABUSE`` is retried always,
    with backoff, as a failed dial: it says what others behind this bot's address (or this bot's
    own earlier streams) did, too many streams waiting to say Hello or too many wrong tokens,
    and a later dial with the right token gets in (the referee never refuses a right token).
    """
    if err.code in _RETRIED_ALWAYS:
        return f"refused for now: {err.message}"
    if err.code in _RETRIED_ON_REDIAL and session.ever_welcomed:
        return f"refused on reconnect: {err.message}"
    status = _ERROR_EXIT.get(err.code, EXIT_FAILURE)
    (log.info if status == EXIT_OK else log.error)("the referee ended the connection: %s", err)
    raise _Fatal(status)
