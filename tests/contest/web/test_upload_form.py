"""Uploading from a bot's page goes through the API's own steps (``upload_slot`` and
``finish_upload``): a real server on loopback, the owner's sign-in cookie, a multipart form."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from craits.contest.web.signin import COOKIE

from ..server import make_contest, serving

BOT = b"from craits_sdk import Bot, run\n"


@pytest.mark.slow
def test_the_owner_uploads_from_the_page_and_another_may_not(tmp_path: Path) -> None:
    tokens = make_contest(tmp_path / "cup", names=("alice", "bob"))
    with serving(tmp_path / "cup") as served:
        alice = served.contest.store.contestants()[0]
        url = f"{served.url}/bots/{alice.id}/versions"
        files = {"bot": ("bot.py", BOT, "text/x-python")}
        with httpx.Client(cookies={COOKIE: tokens["alice"]}) as owner:
            first = owner.post(url, files=files)
            again = owner.post(url, files=files)
        with httpx.Client(cookies={COOKIE: tokens["bob"]}) as other:
            refused = other.post(url, files=files)
        versions = served.contest.store.versions_of(alice.id)
    assert first.status_code == 201 and "stored as version 1" in first.text
    assert again.status_code == 201 and "the same content as your version 1" in again.text
    assert refused.status_code == 403
    assert [v.number for v in versions] == [1]
    assert not any((tmp_path / "cup" / "incoming").iterdir())
