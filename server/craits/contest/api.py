"""The contest's HTTP JSON API, a Starlette application (served by Hypercorn on trio:
``service.py``; described for clients at ``/openapi.json``: ``openapi.py``).

Every call but the public ones (the contest, the board, the specification, registration when
it is open) carries ``Authorization: Bearer <token>``; a contestant reaches only their own
versions, logs and faults: another's is 403, whatever its state. Errors are JSON,
``{"error": "..."}``, with a message that says what was wrong and what to do, and the status
that fits (401 no or bad token, 403 not yours or not now, 404 no such thing, 413 too large,
422 the upload is not a bot we accept, 429 too many uploads, with ``Retry-After``).

The handlers are small: the work is in ``uploads``, ``store`` and ``ratelimit``. An upload is
streamed to disk by the event loop and unpacked in a worker thread (at most
``UNPACKERS`` at once), so a large archive never stalls the other calls.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import trio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .archive import remove_tree
from .config import ContestConfig
from .live import LiveGames
from .livewhole import OrganisedLiveGames
from .openapi import openapi_spec
from .phases import phase_now
from .ratelimit import check_rate
from .store import Contestant, ContestStore, NameTaken, Version
from .tokens import new_token, token_digest
from .uploads import UploadRefused, archive_limits, check_filename, new_incoming, store_upload
from .verdicts import ratings_of

UNPACKERS: Final = 2
"""Uploads unpacked at once (each a worker thread): the rest wait their turn."""
MAX_JSON_BYTES: Final = 16 * 1024


@dataclass
class Contest:
    """What the handlers share: the contest's directory, settings, store and clock."""

    directory: Path
    config: ContestConfig
    store: ContestStore
    clock: Callable[[], float] = time.time
    uploading: set[int] = field(default_factory=set)
    """Contestants with an upload in progress (one at a time each, so the rate limit, checked
    at the start, cannot be outrun by parallel uploads)."""
    unpackers: trio.CapacityLimiter = field(default_factory=lambda: trio.CapacityLimiter(
        UNPACKERS))
    live: LiveGames = field(default_factory=OrganisedLiveGames)
    """The games being played now, public events only: the ladder feeds it, the pages read it;
    and beside them (``OrganisedLiveGames.whole``) every card, for the organiser's pages."""

    def __post_init__(self) -> None:
        self.live.keep_s = self.config.live_delay_s  # ended games stay while delayed

    def phase(self) -> str:
        """The phase now (``phases.phase_now``: the finals, the organiser's, the dates)."""
        return phase_now(self.config, self.store, self.clock())


def fail(status: int, message: str, headers: dict[str, str] | None = None) -> HTTPException:
    """An error answer (raise it): the JSON ``{"error": message}`` with ``status``."""
    return HTTPException(status, message, headers)


def make_app(contest: Contest) -> Starlette:
    """The API over ``contest``."""
    routes = [
        Route("/openapi.json", _openapi, methods=["GET"]),
        Route("/api/v1/contest", _contest_info, methods=["GET"]),
        Route("/api/v1/standings", _standings, methods=["GET"]),
        Route("/api/v1/register", _register, methods=["POST"]),
        Route("/api/v1/me", _me, methods=["GET"]),
        Route("/api/v1/versions", _versions, methods=["GET"]),
        Route("/api/v1/versions", _upload, methods=["POST"]),
        Route("/api/v1/versions/{version_id:int}", _version_detail, methods=["GET"]),
        Route("/api/v1/versions/{version_id:int}/log", _version_log, methods=["GET"]),
        Route("/api/v1/versions/{version_id:int}/faults", _version_faults, methods=["GET"]),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: _error})
    app.state.contest = contest
    return app


async def _error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return JSONResponse({"error": exc.detail}, status_code=exc.status_code,
                        headers=dict(exc.headers or {}))


def _contest(request: Request) -> Contest:
    contest: Contest = request.app.state.contest
    return contest


def _caller(request: Request) -> Contestant:
    """The contestant whose bearer token came with the request (401 otherwise)."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    challenge = {"WWW-Authenticate": 'Bearer realm="craits-contest"'}
    if scheme.lower() != "bearer" or not token.strip():
        raise fail(401, "this call needs your contest token: send the header "
                   "'Authorization: Bearer <token>' (craits contest ... --token T)", challenge)
    contestant = _contest(request).store.contestant_by_digest(token_digest(token.strip()))
    if contestant is None:
        raise fail(401, "unknown token: check it, or ask the organiser for yours", challenge)
    return contestant


def _own_version(request: Request) -> Version:
    """The version in the path, if it is the caller's (404 if none, 403 if another's)."""
    contestant = _caller(request)
    version_id: int = request.path_params["version_id"]
    version = _contest(request).store.version(version_id)
    if version is None:
        raise fail(404, f"no version {version_id}; `craits contest status` lists yours")
    if version.contestant_id != contestant.id:
        raise fail(403, f"version {version_id} is not yours: a contestant sees only their own "
                   "versions, logs and faults")
    return version


async def _openapi(request: Request) -> Response:
    return JSONResponse(openapi_spec())


async def _contest_info(request: Request) -> Response:
    contest = _contest(request)
    config = contest.config
    phases = {name: (None if when is None else when.isoformat())
              for name, when in (("open", config.phases.open), ("freeze", config.phases.freeze),
                                 ("finals", config.phases.finals))}
    return JSONResponse({
        "name": config.name, "phase": contest.phase(), "phases": phases, "join": config.join,
        "seats": [config.min_seats, config.max_seats], "playing_versions":
        config.playing_versions, "rules": config.rules.to_dict(),
        "time": {"move_ms": config.time.move_ms, "bank_ms": config.time.bank_ms},
        "contestants": contest.store.contestant_count(),
    })


async def _standings(request: Request) -> Response:
    contest = _contest(request)
    return JSONResponse({"contest": contest.config.name, "phase": contest.phase(),
                         "rows": contest.store.standings()})


async def _register(request: Request) -> Response:
    contest = _contest(request)
    if contest.config.join != "open":
        raise fail(403, "registration is closed: the organiser adds contestants "
                   "(craits contest add NAME) and gives each their token")
    body = await _json_body(request)
    name = body.get("name")
    if not isinstance(name, str):
        raise fail(422, 'send {"name": "..."}: the name you will appear under')
    name = check_name(name)
    if contest.store.contestant_count() >= contest.config.max_contestants:
        raise fail(403, "the contest is full: ask the organiser")
    token = new_token()
    try:
        contestant = contest.store.add_contestant(name, token_digest(token), contest.clock())
    except NameTaken as exc:
        raise fail(409, str(exc)) from None
    return JSONResponse({"id": contestant.id, "name": contestant.name, "token": token},
                        status_code=201)


def check_name(name: str) -> str:
    """A contestant's name: 1 to 64 printable characters, trimmed (422 otherwise)."""
    name = name.strip()
    if not 1 <= len(name) <= 64 or not name.isprintable():
        raise fail(422, "a name is 1 to 64 printable characters")
    return name


async def _json_body(request: Request) -> dict[str, Any]:
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_JSON_BYTES:
            raise fail(413, f"a JSON body is at most {MAX_JSON_BYTES} bytes")
    try:
        data = json.loads(raw or b"{}")
    except ValueError:
        raise fail(400, "the body is not JSON") from None
    if not isinstance(data, dict):
        raise fail(422, "the body must be a JSON object")
    return data


async def _me(request: Request) -> Response:
    contestant = _caller(request)
    versions = _contest(request).store.versions_of(contestant.id)
    return JSONResponse({"id": contestant.id, "name": contestant.name,
                         "versions": _with_ratings(request, versions)})


async def _versions(request: Request) -> Response:
    contestant = _caller(request)
    versions = _contest(request).store.versions_of(contestant.id)
    return JSONResponse({"versions": _with_ratings(request, versions)})


def _with_ratings(request: Request, versions: list[Version]) -> list[dict[str, Any]]:
    """Each version's summary with its rating history and its verdict against its
    predecessor (``verdicts``): what its owner uploads versions to learn."""
    store = _contest(request).store
    return [{**v.summary(), **ratings_of(store, v.id)} for v in versions]


async def _version_detail(request: Request) -> Response:
    return JSONResponse(_own_version(request).detail())


async def _version_log(request: Request) -> Response:
    version = _own_version(request)
    return JSONResponse({"id": version.id, "state": str(version.state), "log": version.log})


async def _version_faults(request: Request) -> Response:
    version = _own_version(request)
    faults = _contest(request).store.faults_of(version.id)
    return JSONResponse({"id": version.id, "faults": [
        {"at": f.at, "game": f.game, "reason": f.reason} for f in faults]})


async def _upload(request: Request) -> Response:
    contestant = _caller(request)
    contest = _contest(request)
    phase = contest.phase()
    if phase != "open":
        when = "has not opened yet" if phase == "before" else f"is {phase}"
        raise fail(403, f"uploads are closed: the contest {when} (GET /api/v1/contest shows "
                   "its phases)")
    filename = request.query_params.get("filename", "")
    try:
        check_filename(filename)
    except UploadRefused as exc:
        raise fail(422, f"{exc} (the ?filename= query parameter)") from None
    limit = contest.config.uploads.max_upload_kb * 1024
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise fail(413, _too_large(limit))
    try:
        async with upload_slot(contest, contestant) as work:
            return await _receive(request, contest, contestant, work, filename, limit)
    except UploadBusy as exc:
        raise fail(429, str(exc), {"Retry-After": str(exc.retry_after_s)}) from None


async def _receive(request: Request, contest: Contest, contestant: Contestant, work: Path,
                   filename: str, limit: int) -> Response:
    received = 0
    async with await trio.open_file(work / "upload", "wb") as file:
        async for chunk in request.stream():
            received += len(chunk)
            if received > limit:  # counted: it cost the server the bytes up to the limit
                contest.store.record_refused_upload(contestant.id, "too large", contest.clock())
                raise fail(413, _too_large(limit))
            await file.write(chunk)
    if received == 0:
        raise fail(422, "the upload is empty: send the archive or source file as the body")
    try:
        version, outcome, message = await finish_upload(contest, contestant, work, filename)
    except UploadRefused as exc:
        raise fail(422, str(exc)) from None
    return JSONResponse({"outcome": outcome, "message": message, "version": version.detail()},
                        status_code=201 if outcome == "new" else 200)


class UploadBusy(Exception):
    """The contestant may not upload now (one upload at a time, or the rate limit); the
    message says why, ``retry_after_s`` when to try again."""

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


@asynccontextmanager
async def upload_slot(contest: Contest, contestant: Contestant) -> AsyncIterator[Path]:
    """The contestant's one upload at a time, within the rate limit: a fresh directory under
    ``incoming/`` to receive it in, removed afterwards, whatever happens. The API and the bot's
    page both take their uploads through it (``UploadBusy`` when they may not)."""
    if contestant.id in contest.uploading:
        raise UploadBusy("an upload of yours is in progress; wait for its answer", 5)
    limits = contest.config.uploads
    now = contest.clock()
    limited = check_rate(contest.store.upload_times(contestant.id, now - limits.window_s), now,
                         limits)
    if limited is not None:
        raise UploadBusy(limited.message, limited.retry_after_s)
    contest.uploading.add(contestant.id)
    work = new_incoming(contest.directory)
    try:
        yield work
    finally:
        contest.uploading.discard(contestant.id)
        await trio.to_thread.run_sync(remove_tree, work)


async def finish_upload(contest: Contest, contestant: Contestant, work: Path, filename: str
                        ) -> tuple[Version, str, str]:
    """Unpack and store what was received in ``work/upload``, and record it: the version, the
    outcome (``new`` or ``same``) and the sentence that tells the contestant. A refusal is
    recorded too, and raised as ``UploadRefused``."""
    limits = archive_limits(contest.config.uploads)
    try:
        stored = await trio.to_thread.run_sync(store_upload, contest.directory, work, filename,
                                               limits, limiter=contest.unpackers)
    except UploadRefused as exc:
        contest.store.record_refused_upload(contestant.id, str(exc), contest.clock())
        raise
    version, outcome = await trio.to_thread.run_sync(
        contest.store.record_upload, contestant.id, stored.new, contest.clock())
    if outcome == "same":
        message = (f"the same content as your version {version.number} "
                   f"({version.content_hash[:12]}): nothing new stored")
    else:
        message = (f"stored as version {version.number} ({version.content_hash[:12]}); it is "
                   "validating")
    return version, outcome, message


def _too_large(limit: int) -> str:
    return f"the upload is larger than this contest's limit of {limit // 1024} KB"
