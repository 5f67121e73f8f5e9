"""Nothing lost: the real ``craits contest serve`` killed with SIGKILL mid-upload (its body half
streamed) and in the middle of a burst of uploads, then started again. Every version in the
store has its whole tree on disk (hash checked), every upload that was answered is there, and
nothing half made is left."""

from __future__ import annotations

import io
import os
import tarfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from craits.contest.store import ContestStore
from craits.contest.uploads import tree_hash

from .hostile import BOT, MANIFEST
from .processes import craits, craits_json, serve

pytestmark = pytest.mark.slow


def bot_archive(tag: int, padding: int = 0) -> bytes:
    """A distinct bot (``tag``) with ``padding`` bytes of incompressible data."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in (("craits-bot.toml", MANIFEST), ("bot.py", BOT + f"# {tag}\n".encode()),
                           ("data.bin", os.urandom(padding))):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def post(url: str, token: str, body: bytes | Iterator[bytes], filename: str = "bot.tgz"
         ) -> httpx.Response:
    return httpx.post(f"{url}/api/v1/versions", params={"filename": filename}, content=body,
                      headers={"Authorization": f"Bearer {token}"}, timeout=60)


def check_whole(contest: Path) -> list[int]:
    """Every version's files are whole and nothing else is left; returns the version ids."""
    store = ContestStore.open(contest / "contest.db")
    try:
        assert store.pragma("integrity_check") == "ok"
        versions = [v for c in store.contestants() for v in store.versions_of(c.id)]
        for v in versions:
            files, size, digest = tree_hash(contest / "bots" / v.content_hash)
            assert (digest, files, size) == (v.content_hash, v.files, v.bytes)
        assert {p.name for p in (contest / "bots").iterdir()} == {v.content_hash
                                                                  for v in versions}
        return [v.id for v in versions]
    finally:
        store.close()


@pytest.fixture
def contest(tmp_path: Path) -> tuple[Path, str]:
    directory = tmp_path / "contest"
    craits("contest", "init", directory)
    text = (directory / "contest.toml").read_text().replace("per_window = 10",
                                                            "per_window = 1000")
    (directory / "contest.toml").write_text(text)
    token = craits_json("contest", "add", "alice", "--dir", directory, "--json")["token"]
    return directory, token


def test_killed_mid_stream_leaves_no_version_and_restarts_clean(contest: tuple[Path, str]
                                                                ) -> None:
    directory, token = contest
    slow = bot_archive(2, padding=400_000)
    with serve(directory) as server:
        assert post(server.url, token, bot_archive(1)).status_code == 201
        sent = threading.Event()

        def trickle() -> Iterator[bytes]:
            for start in range(0, len(slow), 16_384):
                yield slow[start:start + 16_384]
                if start >= 65_536:
                    sent.set()
                    time.sleep(0.2)

        failures: list[BaseException] = []

        def send() -> None:
            try:
                post(server.url, token, trickle())
            except httpx.HTTPError as exc:
                failures.append(exc)

        sender = threading.Thread(target=send)
        sender.start()
        assert sent.wait(30)
        partial = directory / "incoming"
        deadline = time.monotonic() + 30
        while not any(p.stat().st_size for p in partial.rglob("upload")):
            assert time.monotonic() < deadline, "the upload never reached the disk"
            time.sleep(0.05)
        server.kill()
        sender.join(60)
        assert failures, "the upload cannot have succeeded"
    assert any(partial.iterdir())  # the half upload is still there, until the restart
    with serve(directory) as server:
        assert not any(partial.iterdir())
        assert len(check_whole(directory)) == 1
        again = post(server.url, token, slow)
        assert again.status_code == 201 and again.json()["version"]["number"] == 2
    assert len(check_whole(directory)) == 2


@pytest.mark.parametrize("kill_after_s", [0.3, 0.9])
def test_killed_during_a_burst_of_uploads(contest: tuple[Path, str], kill_after_s: float
                                          ) -> None:
    """Uploads one after another, the server SIGKILLed at some moment of it: every answered
    upload is stored, and whatever the kill interrupted is either whole or absent."""
    directory, token = contest
    answered: list[int] = []
    with serve(directory) as server:
        stop = threading.Event()

        def burst() -> None:
            tag = 100
            while not stop.is_set():
                tag += 1
                try:
                    answer = post(server.url, token, bot_archive(tag, padding=50_000))
                except httpx.HTTPError:
                    return
                if answer.status_code == 201:
                    answered.append(answer.json()["version"]["id"])

        thread = threading.Thread(target=burst)
        thread.start()
        time.sleep(kill_after_s)
        server.kill()
        stop.set()
        thread.join(60)
    with serve(directory):
        stored = check_whole(directory)
        assert answered, "no upload was answered before the kill: nothing was tested"
        assert set(answered) <= set(stored)
        assert len(stored) - len(answered) <= 1  # at most the one in flight, whole
        assert not any((directory / "incoming").iterdir())
