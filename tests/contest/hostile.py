"""Archives built in the tests, hostile ones included: each a few lines, so what a test sends
is read beside what it expects."""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile
from collections.abc import Iterable
from pathlib import Path

MANIFEST = b'command = "python bot.py"\nruntime = "python"\n'
BOT = b"from craits_sdk import Bot, run\n\n\nclass B(Bot):\n    def decide(self, view):\n" \
      b"        return view.legal_moves[0]\n\n\nrun(B)\n"


def tar_member(name: str, data: bytes = b"", kind: bytes = tarfile.REGTYPE, link: str = "",
               mode: int = 0o644, size: int | None = None) -> tuple[tarfile.TarInfo, bytes]:
    """One member: its header and its data."""
    info = tarfile.TarInfo(name)
    info.type = kind
    info.mode = mode
    info.linkname = link
    info.size = len(data) if size is None else size
    return info, data


def tar_gz(members: Iterable[tuple[tarfile.TarInfo, bytes]]) -> bytes:
    """A tar.gz of ``members``, exactly as given (no name cleaning: tarfile writes what it is
    told, ``..`` and all)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return buffer.getvalue()


def good_members() -> list[tuple[tarfile.TarInfo, bytes]]:
    """A working bot's files."""
    return [tar_member("craits-bot.toml", MANIFEST), tar_member("bot.py", BOT)]


def zip_bytes(entries: Iterable[tuple[str, bytes, int]],
              compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A zip of (name, data, unix mode) entries."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name)
            info.external_attr = mode << 16
            info.compress_type = compression
            archive.writestr(info, data)
    return buffer.getvalue()


def zip_symlink(name: str, target: str) -> tuple[str, bytes, int]:
    """A zip entry that unzip would make a symbolic link."""
    return name, target.encode(), stat.S_IFLNK | 0o777


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path
