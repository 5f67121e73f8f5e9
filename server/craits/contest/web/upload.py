"""An upload from the bot's page (a browser's multipart form), through the same steps as the
API's: the same phase check, rate limit, one upload at a time, unpacking and recording
(``uploads.py``, ``store.record_upload``). Only the transport differs: the browser sends a form
field where the command-line client sends the raw body, and the answer is a sentence for the
page rather than JSON.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import trio
from starlette.datastructures import UploadFile

from ..api import Contest
from ..archive import remove_tree
from ..ratelimit import check_rate
from ..store import Contestant
from ..uploads import (
    UploadRefused,
    archive_limits,
    check_filename,
    new_incoming,
    store_upload,
)


async def upload_version(contest: Contest, contestant: Contestant, file: UploadFile) -> str:
    """Store ``file`` as a new version of ``contestant``'s bot; the sentence the page shows.
    Raises ``UploadRefused`` with what to change."""
    phase = contest.phase()
    if phase != "open":
        raise UploadRefused(f"uploads are closed: the contest is {phase}")
    check_filename(file.filename or "")
    limits = contest.config.uploads
    if (file.size or 0) > limits.max_upload_kb * 1024:
        contest.store.record_refused_upload(contestant.id, "too large", contest.clock())
        raise UploadRefused(f"the upload is larger than this contest's limit of "
                            f"{limits.max_upload_kb} KB")
    if contestant.id in contest.uploading:
        raise UploadRefused("an upload of yours is in progress; wait for its answer")
    now = contest.clock()
    limited = check_rate(contest.store.upload_times(contestant.id, now - limits.window_s),
                         now, limits)
    if limited is not None:
        raise UploadRefused(limited.message)
    contest.uploading.add(contestant.id)
    work = new_incoming(contest.directory)
    try:
        return await _store(contest, contestant, file, work)
    finally:
        contest.uploading.discard(contestant.id)
        await trio.to_thread.run_sync(remove_tree, work)


async def _store(contest: Contest, contestant: Contestant, file: UploadFile, work: Path
                 ) -> str:
    def copy() -> None:
        file.file.seek(0)
        with open(work / "upload", "wb") as out:
            shutil.copyfileobj(file.file, out)

    await trio.to_thread.run_sync(copy)
    if (work / "upload").stat().st_size == 0:
        raise UploadRefused("the upload is empty: choose your bot's file or archive")
    try:
        stored = await trio.to_thread.run_sync(
            store_upload, contest.directory, work, file.filename or "",
            archive_limits(contest.config.uploads), limiter=contest.unpackers)
    except UploadRefused as exc:
        contest.store.record_refused_upload(contestant.id, str(exc), contest.clock())
        raise
    version, outcome = await trio.to_thread.run_sync(
        contest.store.record_upload, contestant.id, stored.new, contest.clock())
    if outcome == "same":
        return (f"the same content as your version {version.number} "
                f"({version.content_hash[:12]}): nothing new stored")
    return f"stored as version {version.number} ({version.content_hash[:12]}); it is validating"
