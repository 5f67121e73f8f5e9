"""The contest's HTTP API over a real Hypercorn server on a free loopback port: tokens,
ownership (403 for another's version), uploads (new, same, refused with the rule, too large,
rate-limited with Retry-After on a made-up clock), phases, registration, OpenAPI."""

from __future__ import annotations

import io
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from craits.contest.api import make_app
from craits.contest.archive import ArchiveLimits, unpack
from craits.contest.uploads import tree_hash

from .hostile import BOT, MANIFEST, good_members, tar_gz, tar_member
from .server import Clock, Served, make_contest, serving

pytestmark = pytest.mark.slow  # a real server per test (about half a second each)


def call(served: Served, method: str, path: str, token: str | None = None,
         **kwargs: Any) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.request(method, served.url + path, headers=headers, timeout=30, **kwargs)


def upload(served: Served, token: str, data: bytes, filename: str = "bot.py") -> httpx.Response:
    return call(served, "POST", "/api/v1/versions", token, params={"filename": filename},
                content=data)


@pytest.fixture
def contest_dir(tmp_path: Path) -> Path:
    return tmp_path / "contest"


@pytest.fixture
def two(contest_dir: Path) -> Iterator[tuple[Served, dict[str, str]]]:
    tokens = make_contest(contest_dir, names=("alice", "bob"))
    with serving(contest_dir) as served:
        yield served, tokens


def test_every_route_is_in_the_openapi_spec(two: tuple[Served, dict[str, str]]) -> None:
    served, _ = two
    spec = call(served, "GET", "/openapi.json").json()
    assert spec["openapi"].startswith("3.")
    described = {(path, method.upper()) for path, ops in spec["paths"].items() for method in ops}
    app = make_app(served.contest)
    served_routes = {(route.path.replace(":int", ""), method)  # type: ignore[attr-defined]
                     for route in app.routes for method in route.methods  # type: ignore[attr-defined]
                     if method != "HEAD"}
    assert described == served_routes


def test_calls_need_a_valid_token(two: tuple[Served, dict[str, str]]) -> None:
    served, _ = two
    missing = call(served, "GET", "/api/v1/me")
    assert missing.status_code == 401
    assert "Authorization: Bearer" in missing.json()["error"]
    assert missing.headers["www-authenticate"].startswith("Bearer")
    wrong = call(served, "GET", "/api/v1/me", "cct_not-a-token")
    assert (wrong.status_code, wrong.json()["error"]) == (
        401, "unknown token: check it, or ask the organiser for yours")


def test_the_board_and_the_contest_are_public(two: tuple[Served, dict[str, str]]) -> None:
    served, _ = two
    board = call(served, "GET", "/api/v1/standings")
    assert board.status_code == 200
    assert board.json() == {"contest": "Test cup", "phase": "open", "rows": []}
    info = call(served, "GET", "/api/v1/contest").json()
    assert (info["name"], info["seats"], info["contestants"]) == ("Test cup", [2, 4], 2)


def test_uploads_and_ownership(two: tuple[Served, dict[str, str]]) -> None:
    served, tokens = two
    first = upload(served, tokens["alice"], BOT)
    assert first.status_code == 201, first.text
    body = first.json()
    assert body["outcome"] == "new" and body["version"]["state"] == "validating"
    assert body["version"]["command"] == "python bot.py"
    vid = body["version"]["id"]
    same = upload(served, tokens["alice"], BOT)
    assert same.status_code == 200
    assert same.json()["outcome"] == "same"
    assert "the same content as your version 1" in same.json()["message"]
    # the same bot archived is the same content too (the single file got this manifest)
    archived = tar_gz([tar_member("bot.py", BOT),
                       tar_member("craits-bot.toml", b'command = "python bot.py"\n'
                                  b'runtime = "python"\n')])
    assert upload(served, tokens["alice"], archived, "bot.tar.gz").json()["outcome"] == "same"

    mine = call(served, "GET", "/api/v1/versions", tokens["alice"]).json()["versions"]
    assert [v["id"] for v in mine] == [vid]
    assert call(served, "GET", "/api/v1/versions", tokens["bob"]).json()["versions"] == []
    for suffix in ("", "/log", "/faults"):
        own = call(served, "GET", f"/api/v1/versions/{vid}{suffix}", tokens["alice"])
        assert own.status_code == 200, suffix
        other = call(served, "GET", f"/api/v1/versions/{vid}{suffix}", tokens["bob"])
        assert other.status_code == 403, suffix
        assert "is not yours" in other.json()["error"]
        assert "log" not in other.json() and "command" not in other.json()
    none = call(served, "GET", "/api/v1/versions/999", tokens["bob"])
    assert none.status_code == 404 and "craits contest status" in none.json()["error"]


def test_a_hostile_archive_is_refused_naming_the_rule(two: tuple[Served, dict[str, str]]
                                                      ) -> None:
    served, tokens = two
    answer = upload(served, tokens["alice"], tar_gz([*good_members(), tar_member("../x", b"x")]),
                    "bot.tgz")
    assert answer.status_code == 422
    assert "rule: path-traversal" in answer.json()["error"]
    assert call(served, "GET", "/api/v1/versions", tokens["alice"]).json()["versions"] == []
    assert not any((served.contest.directory / "incoming").iterdir())


def test_an_archive_without_a_manifest(two: tuple[Served, dict[str, str]]) -> None:
    served, tokens = two
    answer = upload(served, tokens["alice"], tar_gz([tar_member("bot.py", BOT)]), "b.tar.gz")
    assert answer.status_code == 422
    assert "no craits-bot.toml at its top level" in answer.json()["error"]


def test_a_wrapped_directory_is_unwrapped(two: tuple[Served, dict[str, str]]) -> None:
    served, tokens = two
    data = tar_gz([tar_member("mybot/craits-bot.toml", MANIFEST),
                   tar_member("mybot/bot.py", BOT)])
    answer = upload(served, tokens["alice"], data, "mybot.tar.gz")
    assert answer.status_code == 201, answer.text
    stored = served.contest.directory / "bots" / answer.json()["version"]["hash"]
    assert sorted(p.name for p in stored.iterdir()) == ["bot.py", "craits-bot.toml"]


def test_what_is_neither_archive_nor_source(two: tuple[Served, dict[str, str]]) -> None:
    served, tokens = two
    answer = upload(served, tokens["alice"], b"\x7fELF...", "bot.exe")
    assert answer.status_code == 422
    assert "neither an archive" in answer.json()["error"]
    bad_name = upload(served, tokens["alice"], BOT, "../bot.py")
    assert bad_name.status_code == 422 and "plain file name" in bad_name.json()["error"]


def test_an_upload_too_large(contest_dir: Path) -> None:
    tokens = make_contest(contest_dir, "uploads.max_upload_kb = 1", ("alice",))
    with serving(contest_dir) as served:
        answer = upload(served, tokens["alice"], b"#" * 2000)
        assert answer.status_code == 413
        assert "limit of 1 KB" in answer.json()["error"]

        def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it streams
            yield from (b"#" * 600 for _ in range(4))

        streamed = upload(served, tokens["alice"], chunks())  # type: ignore[arg-type]
        assert streamed.status_code == 413


def test_uploads_are_rate_limited(contest_dir: Path) -> None:
    tokens = make_contest(contest_dir, "uploads.per_window = 2\nuploads.window_minutes = 10",
                          ("alice", "bob"))
    clock = Clock()
    with serving(contest_dir, clock) as served:
        assert upload(served, tokens["alice"], BOT).status_code == 201
        clock.now += 60
        assert upload(served, tokens["alice"], b"\xff\xfe", "x.py").status_code == 422  # counts
        clock.now += 60
        limited = upload(served, tokens["alice"], BOT + b"# 2\n")
        assert limited.status_code == 429
        assert limited.headers["retry-after"] == "480"
        assert "at most 2 in 10 minutes" in limited.json()["error"]
        assert upload(served, tokens["bob"], BOT).status_code == 201  # per contestant
        clock.now += 481
        assert upload(served, tokens["alice"], BOT + b"# 2\n").status_code == 201


def test_uploads_are_closed_when_frozen(contest_dir: Path) -> None:
    tokens = make_contest(contest_dir, "phases.freeze = 2000-01-01T00:00:00Z", ("alice",))
    with serving(contest_dir) as served:
        answer = upload(served, tokens["alice"], BOT)
        assert answer.status_code == 403
        assert "the contest is frozen" in answer.json()["error"]


def test_registration(contest_dir: Path) -> None:
    make_contest(contest_dir)
    with serving(contest_dir) as served:
        closed = call(served, "POST", "/api/v1/register", json={"name": "eve"})
        assert closed.status_code == 403 and "craits contest add" in closed.json()["error"]
    make_contest(contest_dir / "open", 'join = "open"\nmax_contestants = 1')
    with serving(contest_dir / "open") as served:
        joined = call(served, "POST", "/api/v1/register", json={"name": "eve"})
        assert joined.status_code == 201
        token = joined.json()["token"]
        assert call(served, "GET", "/api/v1/me", token).json()["name"] == "eve"
        full = call(served, "POST", "/api/v1/register", json={"name": "mallory"})
        assert full.status_code == 403 and "full" in full.json()["error"]


def test_pack_and_hash_ignore_dates(tmp_path: Path) -> None:
    """Re-archiving the same files at another time gives the same content hash."""
    hashes = set()
    for mtime in (0, 1_700_000_000):
        root = tmp_path / str(mtime)
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
            for info, data in good_members():
                info.mtime = mtime
                tar.addfile(info, io.BytesIO(data))
        (tmp_path / f"{mtime}.tgz").write_bytes(buffer.getvalue())
        root.mkdir()
        unpack(tmp_path / f"{mtime}.tgz", root, ArchiveLimits())
        hashes.add(tree_hash(root)[2])
    assert len(hashes) == 1
