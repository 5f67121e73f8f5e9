"""The referee service: the hub and the gRPC bridge, started and stopped together."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import trio

from .bridge import DEFAULT_HOST, GrpcBridge, unix_path_too_long
from .hub import BotHub
from .listener import TlsFiles, is_loopback

PLAIN_TEXT_WARNING = (
    "craits: warning: listening on {address} beyond this machine WITHOUT TLS: anyone on the "
    "path can read the bots' tokens and moves and take a bot's seat; serve with --tls-cert and "
    "--tls-key (docs/security.md, \"The listener\")"
)

UNSAFE_SHARED_SOCKET_ENV = "_CRAITS_UNSAFE_SHARED_BOT_SOCKET"
"""A test hook, not a setting: ``=1`` in the environment of a run (and its workers) has every
sandboxed bot dial the referee's one shared Unix socket, as before each bot had its own
(``Referee.socket_for``), so that the tests' control runs can show what one bot flooding that
socket costs another (``tests/security/test_socket_flood.py``). Never set it in a contest."""


class BotSockets:
    """Each bot's own Unix socket, made on first use in the referee's private directory
    (``GrpcBridge.open_bot_socket`` says why a bot has one of its own)."""

    def __init__(self, bridge: GrpcBridge, directory: Path) -> None:
        self._bridge = bridge
        self._directory = directory
        self._paths: dict[str, Path] = {}

    def socket_for(self, name: str) -> Path:
        """The socket of the bot ``name`` (every process of it, whatever its slot)."""
        path = self._paths.get(name)
        if path is None:
            path = self._directory / f"bot{len(self._paths)}.sock"  # a name may be long
            self._bridge.open_bot_socket(name, path)
            self._paths[name] = path
        return path


@dataclass(frozen=True, slots=True)
class Referee:
    """A running referee: where bots dial, and the hub that knows them."""

    hub: BotHub
    host: str
    port: int
    socket: Path | None = None
    """The shared Unix socket (when asked for): the bots the referee launches unsandboxed dial
    it when the port speaks TLS (``local_address``); sandboxed bots dial ``socket_for``."""

    tls: TlsFiles | None = None
    """What ``address`` speaks TLS with (None: plain text)."""
    bot_sockets: BotSockets | None = None
    """Where each sandboxed bot's own socket is made (with ``socket``)."""

    def socket_for(self, name: str) -> Path:
        """The Unix socket the sandboxed bot ``name`` dials (bound into each of its sandboxes):
        one of its own, so that nothing it does there costs another bot (``BotSockets``).
        ``ValueError`` when this referee listens on no Unix socket."""
        if self.bot_sockets is None:
            raise ValueError("this referee listens on no Unix socket (open_referee(unix_socket="
                             "True)): sandboxed bots cannot reach it")
        if self.socket is not None and os.environ.get(UNSAFE_SHARED_SOCKET_ENV) == "1":
            return self.socket  # the tests' control only (``UNSAFE_SHARED_SOCKET_ENV``)
        return self.bot_sockets.socket_for(name)

    @property
    def address(self) -> str:
        """``host:port``, where the port listens."""
        return f"{self.host}:{self.port}"

    @property
    def dial_address(self) -> str:
        """``CRAITS_SERVER`` for a bot beyond this process: ``address``, as ``tls://`` when the
        port speaks TLS, so that the address itself says how to dial (a bot without a CA then
        checks the certificate against its system's CAs and says why it fails, rather than
        seeing its plain dial's socket closed)."""
        return f"tls://{self.address}" if self.tls else self.address

    def bot_settings(self, token: str) -> str:
        """Everything a remote bot sets to dial in, as ``NAME=VALUE`` words to copy: the
        address, the token, and over TLS the CA to trust when this referee knows it
        (``tls_advice`` says what to do when it does not)."""
        words = [f"CRAITS_SERVER={self.dial_address}", f"CRAITS_TOKEN={token}"]
        ca = self.tls.bot_ca() if self.tls else None
        if ca is not None:
            words.append(f"CRAITS_TLS_CA={ca}")
        return " ".join(words)

    def tls_advice(self) -> str | None:
        """One line for the organiser about the CA file of ``bot_settings``: a remote bot needs
        a copy of it on its own machine; or, when this referee cannot know the CA, what to add.
        None for plain text."""
        if self.tls is None:
            return None
        ca = self.tls.bot_ca()
        if ca is not None:
            return (f"bots dial over TLS: a bot on another machine needs a copy of {ca} (a "
                    "certificate, no secret) and CRAITS_TLS_CA naming where it is there")
        return (f"bots dial over TLS: each also needs CRAITS_TLS_CA naming the certificate of "
                f"the CA that signed {self.tls.cert.absolute()} (name it with --tls-ca to have "
                "it printed here); only a CA their system already trusts needs none")

    @property
    def local_address(self) -> str:
        """What the bots this referee launches dial: its Unix socket when the port speaks TLS
        (they have no CA to check it with, and the socket never leaves the machine), else
        ``address``."""
        if self.tls and self.socket is not None:
            return f"unix:{self.socket}"
        return self.address


PRIVATE_PREFIX: Final = "craits-"
"""The referee's private directory (its sockets') in the temporary directory: this and a
random suffix (``tempfile.mkdtemp``'s, 8 characters)."""
SOCKET_NAME: Final = "referee.sock"
"""The referee's own Unix socket in that directory; each bot's (``BotSockets``) is no longer
for the first thousand bots."""


def unix_sockets_problem() -> str | None:
    """Why a referee started by this process could not listen on its Unix sockets (their
    paths too long under the temporary directory, ``TMPDIR``), or None: a Ray node says so
    before it takes a table (``contest.rayactor``), where the referee's own error would reach
    only the node's log."""
    longest = Path(tempfile.gettempdir()) / f"{PRIVATE_PREFIX}{'x' * 8}" / SOCKET_NAME
    return unix_path_too_long(longest)


@asynccontextmanager
async def open_referee(
    host: str = DEFAULT_HOST, port: int = 0, unix_socket: bool = False,
    tls: TlsFiles | None = None,
) -> AsyncIterator[Referee]:
    """Serve on ``host:port`` (port 0 picks a free one) for the duration of the block, and
    also on a Unix socket in a new private directory when ``unix_socket`` is set (for bots in
    sandboxes, which have no network).

    Raises ``bridge.ListenError`` (an ``OSError``) when it cannot listen there.

    ``tls``: serve ``host:port`` over TLS (the Unix socket stays plain: it never leaves the
    machine). Listening beyond this machine without it prints a warning on stderr.

    Needs an asyncio loop hosting this trio run: start the program with ``bridge.run``.
    """
    hub = BotHub()
    unix_socket = unix_socket or tls is not None  # for the bots it launches (local_address)
    private = Path(tempfile.mkdtemp(prefix=PRIVATE_PREFIX)) if unix_socket else None
    socket = None if private is None else private / SOCKET_NAME
    bridge = GrpcBridge(hub, host, port, socket, tls)
    try:
        bound = await bridge.start()
        if tls is None and not is_loopback(host):
            print(PLAIN_TEXT_WARNING.format(address=f"{host}:{bound}"), file=sys.stderr,
                  flush=True)
        try:
            sockets = None if private is None else BotSockets(bridge, private)
            yield Referee(hub, host, bound, socket, tls, sockets)
        finally:
            with trio.CancelScope(shield=True):
                await bridge.stop()
    finally:
        if private is not None:
            shutil.rmtree(private, ignore_errors=True)
