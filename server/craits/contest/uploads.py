"""An upload, from bytes on the wire to a whole version: on disk first, then in the store.

The order is what makes a kill -9 at any moment harmless:

1. the body is streamed into ``incoming/<random>/upload`` (refused beyond ``max_upload_kb``);
2. it is unpacked there (``archive.py``) or, for a single source file, copied, then its
   manifest read (or written, for a single file); every file and directory is fsynced;
3. the tree's content hash is computed (names, exec bits and bytes of every file and link, in
   name order: the same bot archived twice, with other dates or in another format, has one
   hash), and the tree renamed to ``bots/<hash>`` (atomic; if that exists, the copy is dropped:
   the same content is stored once), and ``bots/`` fsynced;
4. only then is the version recorded, in one transaction (``store.record_upload``).

Killed before 4: no version, and at most a directory that ``sweep`` removes on the next start
(everything in ``incoming/``, and any ``bots/<hash>`` no version names). Killed after 4: the
whole version. Never a version without its files.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from .archive import ArchiveLimits, ArchiveRefused, archive_kind, fsync_tree, remove_tree, unpack
from .config import UploadLimits
from .manifest import (
    MANIFEST_NAME,
    SINGLE_FILE_RUNTIMES,
    Manifest,
    ManifestError,
    manifest_for_single_file,
    read_manifest,
)
from .store import NewVersion

INCOMING: Final = "incoming"
BOTS: Final = "bots"


class UploadRefused(ValueError):
    """The upload cannot become a version; the message says why and what to change."""


@dataclass(frozen=True, slots=True)
class StoredTree:
    """A version's files, durably at ``bots/<hash>``."""

    new: NewVersion
    path: Path


def archive_limits(limits: UploadLimits) -> ArchiveLimits:
    """The unpacking limits of a contest's ``[uploads]``."""
    return ArchiveLimits(max_files=limits.max_files, max_file_bytes=limits.max_file_kb * 1024,
                         max_total_bytes=limits.max_total_kb * 1024, max_ratio=limits.max_ratio)


def new_incoming(contest_dir: Path) -> Path:
    """A fresh private directory for one upload's bytes and tree."""
    base = contest_dir / INCOMING
    base.mkdir(exist_ok=True)
    path = base / secrets.token_hex(8)
    path.mkdir(mode=0o700)
    return path


def check_filename(name: str) -> str:
    """The uploaded file's name, as the client sent it: a plain name (no directory)."""
    if not name or "/" in name or "\\" in name or name in (".", "..") or len(name) > 255 \
            or any(ord(c) < 32 for c in name):
        raise UploadRefused(f"the upload's file name {name[:80]!r} must be a plain file name, "
                            "e.g. bot.py or bot.tar.gz")
    return name


def store_upload(contest_dir: Path, work: Path, filename: str, limits: ArchiveLimits
                 ) -> StoredTree:
    """Steps 2 and 3 for the body at ``work/upload`` (sent as ``filename``); blocking, so run
    it in a worker thread. Raises ``UploadRefused``; ``work`` is the caller's to remove."""
    upload = work / "upload"
    tree = work / "tree"
    tree.mkdir()
    if archive_kind(upload) is not None:
        try:
            unpack(upload, tree, limits)
        except ArchiveRefused as exc:
            raise UploadRefused(f"archive refused: {exc}") from None
        root = _bot_root(tree)
        try:
            manifest = read_manifest(root)
        except ManifestError as exc:
            raise UploadRefused(str(exc)) from None
        source = "archive"
    else:
        root, manifest, source = _single_file(upload, tree, filename, limits)
    files, size, digest = tree_hash(root)
    return StoredTree(NewVersion(digest, source, manifest.command, manifest.runtime, files, size),
                      _publish(contest_dir, root, digest))


def _single_file(upload: Path, tree: Path, filename: str, limits: ArchiveLimits
                 ) -> tuple[Path, Manifest, str]:
    suffix = Path(filename).suffix
    if suffix not in SINGLE_FILE_RUNTIMES:
        raise UploadRefused(
            f"{filename!r} is neither an archive (tar, tar.gz or zip, with a {MANIFEST_NAME}) "
            f"nor a single source file ({', '.join(SINGLE_FILE_RUNTIMES)})")
    if upload.stat().st_size > limits.max_file_bytes:
        raise UploadRefused(f"{filename!r} is larger than the limit per file")
    try:
        upload.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise UploadRefused(f"{filename!r} is not UTF-8 text; a source file must be") from None
    if filename == MANIFEST_NAME:
        raise UploadRefused(f"{MANIFEST_NAME} alone is not a bot")
    shutil.copyfile(upload, tree / filename)
    manifest = manifest_for_single_file(filename)
    (tree / MANIFEST_NAME).write_text(manifest.to_toml(), encoding="utf-8")
    for name in (filename, MANIFEST_NAME):
        with (tree / name).open("rb+") as file:
            os.fsync(file.fileno())
    fsync_tree(tree)
    return tree, manifest, filename


def _bot_root(tree: Path) -> Path:
    """Where the bot is in an unpacked tree: its top, or the one directory an archive of a
    directory wraps everything in (``tar czf bot.tgz mybot/``)."""
    if (tree / MANIFEST_NAME).exists():
        return tree
    entries = list(tree.iterdir())
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
        return entries[0]
    return tree


def tree_hash(root: Path) -> tuple[int, int, str]:
    """Files, bytes and the content hash of the tree at ``root`` (links not followed)."""
    lines: list[bytes] = []
    files = size = 0
    for path in sorted(_walk(root), key=lambda p: p.relative_to(root).as_posix()):
        name = path.relative_to(root).as_posix().encode()
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            lines.append(b"L " + name + b" " + os.readlink(path).encode())
        elif stat.S_ISREG(info.st_mode):
            digest = hashlib.sha256()
            with path.open("rb") as file:
                while chunk := file.read(1 << 16):
                    digest.update(chunk)
            executable = b"x" if info.st_mode & 0o111 else b"-"
            lines.append(b"F " + executable + b" " + digest.hexdigest().encode() + b" " + name)
            files += 1
            size += info.st_size
    whole = hashlib.sha256(b"\n".join(lines)).hexdigest()
    return files, size, whole


def _walk(root: Path) -> Iterable[Path]:
    for directory, dirs, names in os.walk(root):
        base = Path(directory)
        # a link to a directory is listed among dirs and not entered: record it as a link
        yield from (base / d for d in dirs if (base / d).is_symlink())
        yield from (base / n for n in names)


def _publish(contest_dir: Path, root: Path, digest: str) -> Path:
    """Rename the synced tree to ``bots/<digest>`` (kept as it is if there already)."""
    bots = contest_dir / BOTS
    bots.mkdir(exist_ok=True)
    final = bots / digest
    if not final.exists():
        try:
            root.rename(final)
        except OSError:
            if not final.exists():  # another upload of the same content won the rename
                raise
        _fsync_dir(bots)
    return final


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sweep(contest_dir: Path, keep: set[str]) -> list[Path]:
    """Remove what a killed service left half done: everything in ``incoming/``, and every
    ``bots/<hash>`` that no version names (``keep``). Returns what was removed."""
    removed: list[Path] = []
    incoming = contest_dir / INCOMING
    if incoming.is_dir():
        for path in incoming.iterdir():
            remove_tree(path)
            removed.append(path)
    bots = contest_dir / BOTS
    if bots.is_dir():
        for path in bots.iterdir():
            if path.name not in keep:
                remove_tree(path)
                removed.append(path)
    return removed
