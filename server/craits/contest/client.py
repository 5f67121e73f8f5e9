"""The HTTP side of ``craits contest submit``, ``status`` and ``standings`` (httpx).

Every failure becomes a ``ClientError`` whose message a user can act on: the server's own
``{"error": ...}`` when it answered (with the wait for a 429), or what went wrong reaching it.
A directory is packed here as a tar.gz (``craits-bot.toml`` checked first, so a missing manifest
is said before anything is sent); a file is sent as it is.
"""

from __future__ import annotations

import io
import ssl
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import httpx

from .manifest import MANIFEST_NAME, ManifestError, read_manifest

TIMEOUT: Final = httpx.Timeout(30.0, connect=10.0)
SKIPPED: Final = frozenset({".git", "__pycache__", ".hg", ".svn", ".venv", ".mypy_cache",
                            ".pytest_cache", ".ruff_cache"})
"""Directories a packed bot leaves out: version control and caches, never needed to run it."""
ARCHIVE_SUFFIXES: Final = (".tar.gz", ".tgz", ".tar", ".zip", ".tar.xz", ".tar.bz2")


class ClientError(Exception):
    """A call failed; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class Payload:
    """What ``submit`` sends: the body and the name it goes by."""

    filename: str
    data: bytes


def payload_for(path: Path) -> Payload:
    """The upload for a bot directory (packed) or file (as it is)."""
    if path.is_dir():
        try:
            read_manifest(path)
        except ManifestError as exc:
            raise ClientError(f"{path}: {exc}") from None
        return Payload(f"{path.resolve().name or 'bot'}.tar.gz", pack_directory(path))
    if not path.is_file():
        raise ClientError(f"{path}: no such file or directory")
    if not (path.suffix in (".py", ".js") or path.name.endswith(ARCHIVE_SUFFIXES)):
        raise ClientError(f"{path}: send a bot directory (with {MANIFEST_NAME}), an archive "
                          f"({', '.join(ARCHIVE_SUFFIXES)}) or one .py or .js file")
    return Payload(path.name, path.read_bytes())


def pack_directory(root: Path, skipped: frozenset[str] = SKIPPED) -> bytes:
    """``root``'s files as a tar.gz, names relative to it, links kept as links, the
    directories named in ``skipped`` (caches) left out, owners and dates zeroed (the server
    hashes content, not metadata)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in sorted(_files(root, skipped)):
            info = tar.gettarinfo(str(path), arcname=path.relative_to(root).as_posix())
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mtime = 0
            if info.isreg():
                with path.open("rb") as file:
                    tar.addfile(info, file)
            else:
                tar.addfile(info)
    return buffer.getvalue()


def _files(root: Path, skipped: frozenset[str]) -> Iterator[Path]:
    for path in root.iterdir():
        if path.is_symlink() or path.is_file():
            yield path
        elif path.is_dir() and path.name not in skipped:
            yield from _files(path, skipped)


class ContestClient:
    """Calls to one contest server, with or without a token."""

    def __init__(self, server: str, token: str | None = None, ca: Path | None = None) -> None:
        """``ca``: a CA certificate (PEM) to trust for an https server, beside the system's
        (for a contest whose certificate a private CA signed, or a self-signed one)."""
        if not server.startswith(("http://", "https://")):
            raise ClientError(f"--server {server!r}: give the contest's URL, e.g. "
                              "http://127.0.0.1:8470")
        verify: ssl.SSLContext | bool = True
        if ca is not None:
            try:
                verify = ssl.create_default_context(cafile=str(ca))
            except (OSError, ssl.SSLError) as exc:
                raise ClientError(f"--ca {ca}: cannot use it as a CA certificate: {exc}"
                                  ) from None
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.server = server.rstrip("/")
        self._http = httpx.Client(base_url=self.server, headers=headers, timeout=TIMEOUT,
                                  verify=verify)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> ContestClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def submit(self, payload: Payload) -> dict[str, Any]:
        """Upload a bot; the server's answer (``outcome``, ``message``, ``version``)."""
        return self._call("POST", "/api/v1/versions", params={"filename": payload.filename},
                          content=payload.data,
                          headers={"Content-Type": "application/octet-stream"})

    def me(self) -> dict[str, Any]:
        return self._call("GET", "/api/v1/me")

    def standings(self) -> dict[str, Any]:
        return self._call("GET", "/api/v1/standings")

    def contest(self) -> dict[str, Any]:
        return self._call("GET", "/api/v1/contest")

    def _call(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.TimeoutException:
            raise ClientError(f"{self.server} did not answer in time; try again") from None
        except httpx.HTTPError as exc:
            raise ClientError(f"cannot reach {self.server}: {exc}; is `craits contest serve` "
                              "running there?") from None
        try:
            data = response.json()
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise ClientError(f"{self.server} answered {response.status_code} without JSON: "
                              "is it a contest server?")
        if response.is_success:
            return data
        message = str(data.get("error") or f"HTTP {response.status_code}")
        retry = response.headers.get("retry-after")
        if response.status_code == 429 and retry:
            message += f" (retry after {retry} s)"
        raise ClientError(message)
