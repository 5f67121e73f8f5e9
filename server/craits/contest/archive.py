"""Unpacking an uploaded archive (tar, tar.gz or zip) without trusting a byte of it.

Nothing here calls ``extractall``: every member is checked by the rules below, then written by
this module into a fresh directory, file by file, with the bytes actually produced counted as
they are written (a zip's or tar's declared sizes are believed only to refuse early, never to
allow). Each refusal is an ``ArchiveRefused`` naming the rule it broke, with a message saying
what to change; the rules, by name:

- ``not-an-archive``: not a tar, tar.gz or zip, or damaged;
- ``bad-name``: a name with a NUL, a control character or a backslash, too long or too deep;
- ``absolute-path``: a name starting with ``/`` (or a drive letter);
- ``path-traversal``: a name with a ``..`` component;
- ``duplicate-path``: a name given twice, or a file where a directory is (or the other way);
- ``link-out``: a symbolic link whose target is absolute or leaves the bot's directory, a hard
  link to anything but an earlier file of the archive, or a member stored through a link;
- ``special-file``: a device, FIFO or socket;
- ``file-count``: more members than ``max_files``;
- ``file-size``: a file larger than ``max_file_bytes``;
- ``total-size``: more than ``max_total_bytes`` unpacked in all;
- ``compression-ratio``: unpacked bytes over the upload's bytes above ``max_ratio`` (a zip
  bomb), checked once the unpacked total passes ``ratio_floor_bytes`` (small text files
  compress well and are harmless).

Modes are reduced to 0o755 or 0o644 (no set-uid, nothing writable by others). Links that pass
are made last, so no file is ever written through one, and each is checked again on disk by
resolving it.
"""

from __future__ import annotations

import gzip
import lzma
import os
import posixpath
import shutil
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final, NoReturn

CHUNK: Final = 1 << 16
_DAMAGED: Final = (tarfile.TarError, zipfile.BadZipFile, EOFError, zlib.error,
                   gzip.BadGzipFile, lzma.LZMAError, NotImplementedError)
"""What a damaged or unsupported archive raises while it is read."""
MAX_NAME_BYTES: Final = 255
MAX_DEPTH: Final = 32


class ArchiveRefused(ValueError):
    """An archive broke ``rule`` (one of the names in the module's docstring)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{message} (rule: {rule})")
        self.rule = rule


@dataclass(frozen=True, slots=True)
class ArchiveLimits:
    """What an archive may unpack to."""

    max_files: int = 2000
    max_file_bytes: int = 50 << 20
    max_total_bytes: int = 200 << 20
    max_ratio: int = 200
    ratio_floor_bytes: int = 1 << 20


def archive_kind(path: Path) -> str | None:
    """``"zip"`` or ``"tar"`` (compressed or not) by the file's first bytes, else None."""
    with path.open("rb") as file:
        head = file.read(512)
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return "zip"
    if head.startswith((b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00")) or head[257:262] == b"ustar":
        return "tar"
    return None


@dataclass(frozen=True, slots=True)
class _Member:
    """One archive member, as the rules see it."""

    name: str
    kind: str  # "file", "dir", "symlink", "hardlink", "special"
    size: int
    mode: int
    target: str = ""


class _Writer:
    """Writes checked members into ``root``, keeping the counts the limits apply to."""

    def __init__(self, root: Path, packed_bytes: int, limits: ArchiveLimits) -> None:
        self.root, self.packed, self.limits = root, max(packed_bytes, 1), limits
        self.members = 0
        self.total = 0
        self.files: dict[str, str] = {}  # name -> "file" | "dir" | "symlink"
        self.links: list[tuple[str, str]] = []

    def check(self, member: _Member) -> str | None:
        """The member's clean name (None for the top directory itself), or a refusal."""
        self.members += 1
        if self.members > self.limits.max_files:
            self.too_many()
        name = clean_name(member.name)
        if name is None:
            return None
        if member.kind == "special":
            raise ArchiveRefused("special-file", f"{name!r} is a device, FIFO or socket; an "
                                 "archive may hold only files, directories and links")
        if member.size > self.limits.max_file_bytes:
            self._too_big(name)
        parts = name.split("/")
        for depth in range(1, len(parts)):
            prefix = "/".join(parts[:depth])
            seen = self.files.get(prefix)
            if seen == "symlink":
                raise ArchiveRefused("link-out", f"{name!r} is stored through the link "
                                     f"{prefix!r}; store it under its real directory")
            if seen == "file":
                raise ArchiveRefused("duplicate-path", f"{prefix!r} is a file, so {name!r} "
                                     "cannot be inside it")
        previous = self.files.get(name)
        if previous is not None and not (previous == "dir" == _kind_on_disk(member)):
            raise ArchiveRefused("duplicate-path", f"{name!r} appears twice in the archive")
        return name

    def too_many(self) -> NoReturn:
        raise ArchiveRefused("file-count", f"the archive has more than {self.limits.max_files} "
                             "members; leave out what the bot does not need")

    def directory(self, name: str) -> None:
        self._mkdirs(name)
        self.files[name] = "dir"

    def file(self, name: str, source: IO[bytes], mode: int) -> None:
        """Copy ``source`` to ``name``, counting every byte against the limits."""
        parent = posixpath.dirname(name)
        if parent:
            self._mkdirs(parent)
        target = self.root / name
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(target, flags, 0o755 if mode & 0o111 else 0o644)
        self.files[name] = "file"
        written = 0
        with os.fdopen(fd, "wb") as out:
            while chunk := source.read(CHUNK):
                written += len(chunk)
                self.total += len(chunk)
                if written > self.limits.max_file_bytes:
                    self._too_big(name)
                self._check_totals()
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())

    def hardlink(self, name: str, target: str, mode: int) -> None:
        """A tar hard link: a copy of an earlier file of the archive."""
        try:
            clean = clean_name(target)
        except ArchiveRefused:
            clean = None
        if clean is None or self.files.get(clean) != "file":
            raise ArchiveRefused("link-out", f"{name!r} is a hard link to {target!r}, which is "
                                 "not an earlier file of the archive")
        with (self.root / clean).open("rb") as source:
            self.file(name, source, mode)

    def symlink(self, name: str, target: str) -> None:
        """Note a symbolic link, made by ``finish`` once every file is written."""
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(name), target))
        if (not target or "\x00" in target or target.startswith("/")
                or resolved == ".." or resolved.startswith("../")):
            raise ArchiveRefused("link-out", f"{name!r} links to {target!r}, outside the bot's "
                                 "directory; links may only point inside it")
        self.files[name] = "symlink"
        self.links.append((name, target))

    def finish(self) -> None:
        """Make the links, check each again on disk, and make every directory durable."""
        real_root = os.path.realpath(self.root)
        for name, target in self.links:
            parent = posixpath.dirname(name)
            if parent:
                self._mkdirs(parent)
            os.symlink(target, self.root / name)
        for name, target in self.links:
            real = os.path.realpath(self.root / name)
            if os.path.commonpath([real_root, real]) != real_root:
                raise ArchiveRefused("link-out", f"{name!r} links to {target!r}, which leads "
                                     "outside the bot's directory through another link")
        fsync_tree(self.root)

    def _mkdirs(self, name: str) -> None:
        parts = name.split("/")
        for depth in range(1, len(parts) + 1):
            prefix = "/".join(parts[:depth])
            seen = self.files.get(prefix)
            if seen == "dir":
                continue
            if seen is not None:
                raise ArchiveRefused("duplicate-path", f"{prefix!r} is both a {seen} and a "
                                     "directory")
            os.mkdir(self.root / prefix, 0o755)
            self.files[prefix] = "dir"

    def _too_big(self, name: str) -> NoReturn:
        raise ArchiveRefused("file-size", f"{name!r} is larger than the limit of "
                             f"{_size(self.limits.max_file_bytes)} per file")

    def _check_totals(self) -> None:
        if self.total > self.limits.max_total_bytes:
            raise ArchiveRefused("total-size", f"the archive unpacks to more than "
                                 f"{_size(self.limits.max_total_bytes)} in all")
        if (self.total > self.limits.ratio_floor_bytes
                and self.total > self.limits.max_ratio * self.packed):
            raise ArchiveRefused("compression-ratio", f"the archive unpacks to more than "
                                 f"{self.limits.max_ratio} times its own size "
                                 f"({_size(self.packed)}), as zip bombs do")


def clean_name(raw: str) -> str | None:
    """A member's name checked and normalised (``./a//b/`` is ``a/b``); None for the top
    directory itself. Raises ``ArchiveRefused`` for the name rules."""
    if "\x00" in raw or "\\" in raw or any(ord(c) < 32 or ord(c) == 127 for c in raw):
        raise ArchiveRefused("bad-name", f"{raw!r} has a control character or a backslash; "
                             "use plain names with / between directories")
    if raw.startswith("/") or (len(raw) > 1 and raw[1] == ":" and raw[0].isalpha()):
        raise ArchiveRefused("absolute-path", f"{raw!r} is an absolute path; store names "
                             "relative to the bot's directory")
    parts = [p for p in raw.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise ArchiveRefused("path-traversal", f"{raw!r} climbs out with '..'; store names "
                             "relative to the bot's directory, without '..'")
    if len(parts) > MAX_DEPTH or any(len(p.encode()) > MAX_NAME_BYTES for p in parts):
        raise ArchiveRefused("bad-name", f"{raw[:80]!r} is nested deeper than {MAX_DEPTH} "
                             f"directories or has a name over {MAX_NAME_BYTES} bytes")
    return "/".join(parts) or None


def unpack(upload: Path, root: Path, limits: ArchiveLimits) -> None:
    """Unpack the archive ``upload`` into the empty directory ``root``, or raise
    ``ArchiveRefused`` (``root`` then holds a partial tree for the caller to delete)."""
    kind = archive_kind(upload)
    writer = _Writer(root, upload.stat().st_size, limits)
    try:
        if kind == "zip":
            _unpack_zip(upload, writer)
        elif kind == "tar":
            _unpack_tar(upload, writer)
        else:
            raise ArchiveRefused("not-an-archive", "the upload is not a tar, tar.gz or zip "
                                 "archive (nor a single .py or .js file)")
    except _DAMAGED as exc:  # a disk's own OSError (no space...) is not the archive's fault
        raise ArchiveRefused("not-an-archive", f"the archive is damaged: {exc}") from None
    writer.finish()


def _unpack_tar(upload: Path, writer: _Writer) -> None:
    with tarfile.open(upload, mode="r:*") as tar:
        for info in _tar_members(tar):
            member = _tar_member(info)
            name = writer.check(member)
            if name is None:
                continue
            if member.kind == "dir":
                writer.directory(name)
            elif member.kind == "symlink":
                writer.symlink(name, member.target)
            elif member.kind == "hardlink":
                writer.hardlink(name, member.target, member.mode)
            else:
                source = tar.extractfile(info)
                assert source is not None  # a regular member always has data
                with source:
                    writer.file(name, source, member.mode)


def _tar_members(tar: tarfile.TarFile) -> Iterator[tarfile.TarInfo]:
    """The members one at a time (``getmembers`` would read every header first)."""
    while (info := tar.next()) is not None:
        yield info


def _tar_member(info: tarfile.TarInfo) -> _Member:
    if info.isreg():
        kind = "file"
    elif info.isdir():
        kind = "dir"
    elif info.issym():
        kind = "symlink"
    elif info.islnk():
        kind = "hardlink"
    else:
        kind = "special"
    return _Member(info.name, kind, info.size if kind == "file" else 0, info.mode,
                   info.linkname)


def _unpack_zip(upload: Path, writer: _Writer) -> None:
    with zipfile.ZipFile(upload) as archive:
        infos = archive.infolist()
        if len(infos) > writer.limits.max_files:  # refused before a byte is written
            writer.too_many()
        for info in infos:
            member = _zip_member(info)
            name = writer.check(member)
            if name is None:
                continue
            if member.kind == "dir":
                writer.directory(name)
                continue
            with archive.open(info) as source:
                if member.kind == "symlink":
                    target = source.read(4096).decode("utf-8", "replace")
                    writer.symlink(name, target)
                else:
                    writer.file(name, source, member.mode)


def _zip_member(info: zipfile.ZipInfo) -> _Member:
    mode = info.external_attr >> 16
    if info.is_dir():
        kind = "dir"
    elif stat.S_ISLNK(mode):
        kind = "symlink"
    elif stat.S_IFMT(mode) == 0 or stat.S_ISREG(mode):  # no type: a file (as zipfile writes)
        kind = "file"
    else:
        kind = "special"
    return _Member(info.filename, kind, info.file_size if kind == "file" else 0, mode)


def _kind_on_disk(member: _Member) -> str:
    return "dir" if member.kind == "dir" else "file"


def fsync_tree(root: Path) -> None:
    """fsync every directory under ``root`` (files were synced as they were written), so a
    rename of ``root`` that follows publishes a tree that survives a crash whole."""
    for directory, _dirs, _files in os.walk(root, topdown=False):
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def remove_tree(path: Path) -> None:
    """Delete ``path`` and everything in it, links included, never following one."""
    shutil.rmtree(path, ignore_errors=True)


def _size(n: int) -> str:
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:g} {unit}"
    return f"{n} bytes"
