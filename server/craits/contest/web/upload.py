"""An upload from the bot's page (a browser's multipart form), through the same steps as the
API's: the same phase check, and the API's own ``upload_slot`` (one upload at a time, the rate
limit) and ``finish_upload`` (unpacking and recording). Only the transport differs: the browser
sends a form field where the command-line client sends the raw body, and the answer is a
sentence for the page rather than JSON.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import trio
from starlette.datastructures import UploadFile

from ..api import Contest, UploadBusy, finish_upload, upload_slot
from ..store import Contestant
from ..uploads import UploadRefused, check_filename


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
    try:
        async with upload_slot(contest, contestant) as work:
            return await _store(contest, contestant, file, work)
    except UploadBusy as exc:
        raise UploadRefused(str(exc)) from None


async def _store(contest: Contest, contestant: Contestant, file: UploadFile, work: Path
                 ) -> str:
    def copy() -> None:
        file.file.seek(0)
        with open(work / "upload", "wb") as out:
            shutil.copyfileobj(file.file, out)

    await trio.to_thread.run_sync(copy)
    if (work / "upload").stat().st_size == 0:
        raise UploadRefused("the upload is empty: choose your bot's file or archive")
    _, _, message = await finish_upload(contest, contestant, work, file.filename or "")
    return message
