"""``craits contest serve``: the contest's HTTP API on Hypercorn's trio worker.

Starting is where a killed predecessor is cleaned up after: the store is opened (SQLite
recovers its WAL by itself), then ``uploads.sweep`` removes every half-made upload, so the
service starts from whole versions only. Then, unless asked to serve the API only, the validator
(``validation``) and the ladder (``ladder``) run as tasks in the same nursery as the server;
the ladder's tables are played in table worker processes (``tableworker_pool``), so the web
pages and the games do not share one process and one core.
They need the contest's lock (``LOCK``, a ``flock`` the kernel drops when the process dies,
however it dies): with it held, every validation lease and claimed table in the store is a dead
predecessor's, so both are replayed at once. Only a ladder played in this process (``--workers
0``) needs the referee's gRPC here, which runs on an asyncio loop hosting trio
(``craits.referee.bridge.run``): ``craits contest serve`` starts there then. Otherwise the
referees are in the table workers, the Ray actors and validation's child processes, and trio
runs alone (plain ``trio.run``): under 200 pollers and 50 live watchers, the two loops'
hand-offs were a tenth of the web loop's busy time.

The server is bound before anything is announced: ``serve_contest`` reports the URL it really
listens on (port 0 asks the OS for a free one, which is how the tests start it).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import trio
from hypercorn.config import Config as HypercornConfig
from hypercorn.trio import serve

from craits.tournament.run.lease import LeaseError, lease
from craits.tournament.run.ray_pool import RayCluster

from .api import Contest, make_app
from .config import load_contest_config
from .ladder import Ladder
from .store import DB_NAME, ContestStore
from .uploads import sweep
from .validation import ContestRun, validation_loop
from .web.mount import with_pages

READ_TIMEOUT_S: Final = 60
"""A connection that sends nothing for this long is closed: an upload trickled byte by byte
cannot hold its contestant's upload slot (one at a time) or a connection forever."""


@dataclass(frozen=True, slots=True)
class Listen:
    """Where and how to listen."""

    host: str = "127.0.0.1"
    port: int = 8470
    tls_cert: Path | None = None
    tls_key: Path | None = None


def open_contest(directory: Path, clock: Callable[[], float] = time.time) -> Contest:
    """The contest in ``directory``, its store open and swept (``ConfigError`` or
    ``StoreError`` saying what is wrong)."""
    config = load_contest_config(directory)
    store = ContestStore.open(directory / DB_NAME)
    sweep(directory, store.stored_hashes())
    return Contest(directory=directory, config=config, store=store, clock=clock)


def hypercorn_config(listen: Listen) -> HypercornConfig:
    """Hypercorn's settings: the address, TLS, no access log (stderr stays for errors)."""
    config = HypercornConfig()
    host = f"[{listen.host}]" if ":" in listen.host else listen.host
    config.bind = [f"{host}:{listen.port}"]
    if listen.tls_cert is not None and listen.tls_key is not None:
        config.certfile = str(listen.tls_cert)
        config.keyfile = str(listen.tls_key)
    config.read_timeout = READ_TIMEOUT_S
    config.accesslog = None
    config.errorlog = logging.getLogger("craits.contest.http")
    config.include_server_header = False
    return config


async def serve_contest(contest: Contest, listen: Listen,
                        announce: Callable[[list[str]], None], games: bool = False,
                        workers: int | None = 1, ray: RayCluster | None = None) -> None:
    """Serve ``contest`` until cancelled; ``announce`` gets the URLs once they listen.
    ``games``: run the validator and the ladder too (``LeaseError`` when another service runs
    this contest's games), the ladder's tables in ``workers`` table worker processes (0: in
    this process, one at a time, under ``bridge.run`` only; ``ladder``), or with ``ray`` in
    ``workers`` actors on that cluster (None: one per CPU; ``raytables``)."""
    app = with_pages(make_app(contest), contest)  # the web pages (craits.contest.web)
    with contextlib.ExitStack() as stack:
        async with trio.open_nursery() as nursery:
            binds: list[str] = await nursery.start(serve, app, hypercorn_config(listen))
            if games:  # after the bind, so that a busy port is reported as such
                stack.enter_context(games_lock(contest.directory))
                contest.store.release_validation_leases()
                run = ContestRun(contest.directory, contest.config, contest.store,
                                 contest.clock)
                nursery.start_soon(validation_loop, run)
                nursery.start_soon(Ladder(run, live=contest.live, workers=workers, ray=ray).run)
            announce(binds)


@contextlib.contextmanager
def games_lock(directory: Path) -> Iterator[None]:
    """Hold the contest's lock (``LeaseError`` saying so if another service holds it)."""
    try:
        with lease(directory / "logs", "contest"):
            yield
    except LeaseError:
        raise LeaseError(f"{directory}: another craits contest serve is running this contest's "
                         "games; stop it first (or serve this one with --api-only)") from None
