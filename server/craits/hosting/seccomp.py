"""A seccomp filter that keeps a sandboxed bot out of new user namespaces.

Why: in a user namespace of its own a process is root there, and reaches kernel code that only
root may otherwise use (mounting filesystems, netfilter, ...): most kernel escapes of recent
years start that way. bubblewrap's ``--disable-userns`` closes it, but only when bwrap itself
makes a user namespace, which it does not when the referee runs as root (the bot then gets a
real user id of its own instead, ``sandbox.py``). This filter closes it in that case: the
``unshare`` and ``clone`` system calls fail with ``EPERM`` when asked for ``CLONE_NEWUSER``, and
``clone3`` (whose flags lie in memory a filter cannot read) fails with ``ENOSYS``, on which the C
library falls back to ``clone``. Every other system call is allowed.

The program is classic BPF, thirteen instructions written out here rather than taken from a
library: no well-kept Python package is installed with the project for it, and bwrap takes the
compiled program on a file descriptor (``--seccomp FD``). System calls of an architecture other
than this machine's native one (32-bit calls from a 64-bit process, x32) fail with ``EPERM``,
since their numbers differ and would slip past the rules.
"""

from __future__ import annotations

import os
import platform
import struct
from typing import Final

CLONE_NEWUSER: Final = 0x10000000
_ARCHES: Final = {
    # machine: (AUDIT_ARCH_*, unshare, clone, clone3)
    "x86_64": (0xC000003E, 272, 56, 435),
    "aarch64": (0xC00000B7, 97, 220, 435),
}
_LD_ABS_W, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_ALLOW: Final = 0x7FFF0000
_ERRNO: Final = 0x00050000
_X32_BIT: Final = 0x40000000


def supported() -> bool:
    """Whether a filter can be built for this machine's architecture."""
    return platform.machine() in _ARCHES


def program() -> bytes:
    """The compiled filter (``struct sock_filter`` array) for this machine."""
    arch, unshare, clone, clone3 = _ARCHES[platform.machine()]
    eperm, enosys = _ERRNO | 1, _ERRNO | 38
    code = [
        (_LD_ABS_W, 0, 0, 4),            # 0: A = arch
        (_JEQ, 1, 0, arch),              # 1: native? skip the refusal
        (_RET, 0, 0, eperm),             # 2: foreign architecture
        (_LD_ABS_W, 0, 0, 0),            # 3: A = system call number
        (_JGE, 5, 0, _X32_BIT),          # 4: x32 call -> refuse (10)
        (_JEQ, 6, 0, clone3),            # 5: clone3 -> ENOSYS (12)
        (_JEQ, 1, 0, unshare),           # 6: unshare -> check flags (8)
        (_JEQ, 0, 3, clone),             # 7: clone -> check flags (8), else allow (11)
        (_LD_ABS_W, 0, 0, 16),           # 8: A = low half of the first argument (flags)
        (_JSET, 0, 1, CLONE_NEWUSER),    # 9: CLONE_NEWUSER -> refuse (10), else allow (11)
        (_RET, 0, 0, eperm),             # 10
        (_RET, 0, 0, _ALLOW),            # 11
        (_RET, 0, 0, enosys),            # 12
    ]
    return b"".join(struct.pack("<HBBI", *instruction) for instruction in code)


def memfd() -> int:
    """A file descriptor holding the program, positioned at its start, for ``bwrap --seccomp``
    (the caller passes it to the child and closes it after the start)."""
    fd = os.memfd_create("craits-seccomp", 0)
    os.write(fd, program())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
