"""Unpacking archives: a good bot unpacks whole, and each rule refuses its hostile archive with
a message naming the rule (``craits.contest.archive``'s docstring lists them)."""

from __future__ import annotations

import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from craits.contest.archive import ArchiveLimits, ArchiveRefused, unpack

from .hostile import (
    BOT,
    MANIFEST,
    good_members,
    tar_gz,
    tar_member,
    write,
    zip_bytes,
    zip_symlink,
)

LIMITS = ArchiveLimits(max_files=50, max_file_bytes=4 << 20, max_total_bytes=8 << 20,
                       max_ratio=50, ratio_floor_bytes=1 << 20)


def refused(tmp_path: Path, data: bytes, limits: ArchiveLimits = LIMITS) -> ArchiveRefused:
    """Unpack ``data``, which must be refused; also checks nothing escaped ``tmp_path/out``."""
    upload = write(tmp_path / "upload", data)
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(ArchiveRefused) as caught:
        unpack(upload, out, limits)
    outside = {p.name for p in tmp_path.iterdir()} - {"upload", "out"}
    assert not outside, f"wrote outside the tree: {outside}"
    return caught.value


def test_a_good_tar_gz_unpacks_with_its_modes_tamed(tmp_path: Path) -> None:
    members = [*good_members(), tar_member("lib", kind=tarfile.DIRTYPE, mode=0o777),
               tar_member("lib/run.sh", b"#!/bin/sh\n", mode=0o4777),
               tar_member("lib/again.py", kind=tarfile.LNKTYPE, link="bot.py"),
               tar_member("lib/bot.py", kind=tarfile.SYMTYPE, link="../bot.py")]
    out = tmp_path / "out"
    out.mkdir()
    unpack(write(tmp_path / "u.tgz", tar_gz(members)), out, LIMITS)
    assert (out / "bot.py").read_bytes() == BOT == (out / "lib/again.py").read_bytes()
    assert stat.S_IMODE((out / "lib/run.sh").stat().st_mode) == 0o755  # no set-uid, no o+w
    assert os.readlink(out / "lib/bot.py") == "../bot.py"


def test_a_good_zip_unpacks(tmp_path: Path) -> None:
    data = zip_bytes([("craits-bot.toml", MANIFEST, 0o644), ("src/", b"", 0o40755),
                      ("src/bot.py", BOT, 0o644), zip_symlink("main.py", "src/bot.py")])
    out = tmp_path / "out"
    out.mkdir()
    unpack(write(tmp_path / "u.zip", data), out, LIMITS)
    assert (out / "main.py").read_bytes() == BOT


@pytest.mark.parametrize("name", ["../evil.py", "a/../../evil.py", "ok/../../../etc/x"])
def test_path_traversal(tmp_path: Path, name: str) -> None:
    exc = refused(tmp_path, tar_gz([*good_members(), tar_member(name, b"x")]))
    assert exc.rule == "path-traversal" and "'..'" in str(exc)


def test_path_traversal_in_a_zip(tmp_path: Path) -> None:
    exc = refused(tmp_path, zip_bytes([("../evil.py", b"x", 0o644)]))
    assert exc.rule == "path-traversal"


@pytest.mark.parametrize("name", ["/etc/cron.d/evil", "C:/evil.py"])
def test_absolute_paths(tmp_path: Path, name: str) -> None:
    exc = refused(tmp_path, tar_gz([tar_member(name, b"x")]))
    assert exc.rule == "absolute-path" and "absolute path" in str(exc)


@pytest.mark.parametrize("target", ["/etc/passwd", "../outside", "a/../../outside"])
def test_symbolic_links_out(tmp_path: Path, target: str) -> None:
    exc = refused(tmp_path, tar_gz([tar_member("link", kind=tarfile.SYMTYPE, link=target)]))
    assert exc.rule == "link-out" and "outside the bot's directory" in str(exc)


def test_a_symbolic_link_out_in_a_zip(tmp_path: Path) -> None:
    exc = refused(tmp_path, zip_bytes([zip_symlink("link", "/etc/shadow")]))
    assert exc.rule == "link-out"


@pytest.mark.parametrize("target", ["/etc/passwd", "../x", "not-in-the-archive"])
def test_a_hard_link_to_a_file_outside(tmp_path: Path, target: str) -> None:
    exc = refused(tmp_path, tar_gz([tar_member("pw", kind=tarfile.LNKTYPE, link=target)]))
    assert exc.rule == "link-out" and "hard link" in str(exc)


def test_a_file_written_through_a_link(tmp_path: Path) -> None:
    """A link inside the tree, then a file stored "through" it: refused, whatever it points
    at (a link's target can be changed by a later member; files are never written through)."""
    exc = refused(tmp_path, tar_gz([tar_member("d", kind=tarfile.SYMTYPE, link="."),
                                    tar_member("d/x.py", b"x")]))
    assert exc.rule == "link-out" and "through the link" in str(exc)


def test_links_that_escape_only_through_other_links(tmp_path: Path) -> None:
    """Each link stays inside by itself, but ``b/..`` on disk is the parent of ``b``'s target:
    the check on disk after the links are made catches it."""
    members = [tar_member("x", kind=tarfile.DIRTYPE), tar_member("x/y", kind=tarfile.DIRTYPE),
               tar_member("b", kind=tarfile.SYMTYPE, link="x/y"),
               tar_member("x/y/c", kind=tarfile.SYMTYPE, link="../.."),
               tar_member("e", kind=tarfile.SYMTYPE, link="b/c/..")]
    exc = refused(tmp_path, tar_gz(members))
    assert exc.rule == "link-out"


@pytest.mark.parametrize("kind", [tarfile.CHRTYPE, tarfile.BLKTYPE, tarfile.FIFOTYPE])
def test_devices_and_fifos(tmp_path: Path, kind: bytes) -> None:
    exc = refused(tmp_path, tar_gz([tar_member("dev", kind=kind)]))
    assert exc.rule == "special-file" and "device, FIFO or socket" in str(exc)


def test_a_zip_bomb_by_ratio(tmp_path: Path) -> None:
    """2 MB of zeros deflate to about 2 KB: far beyond a ratio of 50."""
    exc = refused(tmp_path, zip_bytes([("zeros.bin", bytes(2 << 20), 0o644)]))
    assert exc.rule == "compression-ratio" and "zip bomb" in str(exc)


def test_a_zip_bomb_by_total_size(tmp_path: Path) -> None:
    """Many files, each under the per-file limit, that add up past the total (a ratio too
    lenient to catch it, so the total has to)."""
    lenient = ArchiveLimits(max_files=50, max_file_bytes=4 << 20, max_total_bytes=8 << 20,
                            max_ratio=1_000_000)
    members = [tar_member(f"f{i}.bin", bytes(3 << 20)) for i in range(3)]
    exc = refused(tmp_path, tar_gz(members), lenient)
    assert exc.rule == "total-size" and "8 MB in all" in str(exc)


def test_a_zip_that_lies_about_its_sizes(tmp_path: Path) -> None:
    """A zip claiming 1 byte for 6 MB: zipfile reads no more than the claim, and the
    checksum then shows the lie: refused as damaged, never unpacked past the claim."""
    data = bytearray(zip_bytes([("big.bin", bytes(6 << 20), 0o644)]))
    with zipfile.ZipFile(write(tmp_path / "probe", bytes(data))) as probe:
        info = probe.infolist()[0]
    # the file_size fields (local header at offset 22, central directory at +24) claim 1 byte
    data[22:26] = (1).to_bytes(4, "little")
    central = bytes(data).rfind(b"PK\x01\x02")
    data[central + 24:central + 28] = (1).to_bytes(4, "little")
    (tmp_path / "probe").unlink()
    assert info.file_size == 6 << 20
    lenient = ArchiveLimits(max_files=50, max_file_bytes=4 << 20, max_total_bytes=8 << 20,
                            max_ratio=1_000_000)
    exc = refused(tmp_path, bytes(data), lenient)
    assert exc.rule == "not-an-archive" and "CRC" in str(exc)
    assert sum(p.stat().st_size for p in (tmp_path / "out").rglob("*")) <= 1


def test_too_many_files(tmp_path: Path) -> None:
    exc = refused(tmp_path, tar_gz([tar_member(f"f{i}", b"x") for i in range(51)]))
    assert exc.rule == "file-count" and "more than 50 members" in str(exc)


def test_too_many_files_in_a_zip_is_refused_before_unpacking(tmp_path: Path) -> None:
    exc = refused(tmp_path, zip_bytes([(f"f{i}", b"x", 0o644) for i in range(51)]))
    assert exc.rule == "file-count"
    assert not any((tmp_path / "out").iterdir())


def test_a_file_too_big(tmp_path: Path) -> None:
    exc = refused(tmp_path, tar_gz([tar_member("big.bin", os.urandom(5 << 20))]))
    assert exc.rule == "file-size" and "'big.bin' is larger than the limit of 4 MB" in str(exc)


def test_the_same_name_twice(tmp_path: Path) -> None:
    exc = refused(tmp_path, tar_gz([tar_member("bot.py", b"1"), tar_member("./bot.py", b"2")]))
    assert exc.rule == "duplicate-path"


def test_a_file_then_a_directory_of_the_same_name(tmp_path: Path) -> None:
    exc = refused(tmp_path, tar_gz([tar_member("a", b"1"), tar_member("a/b", b"2")]))
    assert exc.rule == "duplicate-path"


@pytest.mark.parametrize("name", ["bad\\name.py", "new\nline.py", "x/" * 40 + "deep.py"])
def test_bad_names(tmp_path: Path, name: str) -> None:
    assert refused(tmp_path, tar_gz([tar_member(name, b"x")])).rule == "bad-name"


@pytest.mark.parametrize("data", [b"just text", b"\x1f\x8b\x08\x00garbage", b"PK\x03\x04junk"])
def test_not_an_archive_or_damaged(tmp_path: Path, data: bytes) -> None:
    assert refused(tmp_path, data).rule == "not-an-archive"
