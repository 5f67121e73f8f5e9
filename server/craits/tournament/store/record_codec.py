"""The bytes of a stored game record (``games.record``): ``encode`` and ``decode``.

Format 1 is zlib (RFC 1950, level 6) of three parts, one after the other::

    header   compact UTF-8 JSON, then one newline (compact JSON has none inside):
             {"v": 1, "n": N,                  # format, number of moves
              "first": 1,                      # decision number of the first move; the others
              "decisions": [...],              #   follow by one, or are all listed instead
              "defaulted": [17, 240],          # indices of the moves the failure policy chose
              "faults": [["strike", 2, "timeout", "no valid move within 1.000s", 18], ...]}
                                               # action, seat, reason, detail, decision (0: none)
    moves    N signed 16-bit choices (``engine.choice_of``: the move's place among the legal
             moves; ``-1 - i`` for the move at ``i`` played without its "one card"), as two
             byte planes: every choice's low byte, then every choice's high byte
    times    N unsigned 32-bit answer times in whole microseconds (0xFFFFFFFF: unknown), as
             four byte planes, lowest byte first

Byte planes put alike bytes together: the high planes are almost all zero and compress to
nearly nothing, so a move costs about 2 bytes compressed, most of it its time (about 2.5 bytes
as JSON numbers). Encoding is a few list operations in C and one ``zlib.compress``: the store
must record a game in well under a millisecond (``benchmarks/store_bench.py``).
"""

from __future__ import annotations

import json
import sys
import zlib
from array import array
from typing import Any, Final, cast

from .game_records import LoggedFault, PlayLog, RecordError

FORMAT: Final = 1
"""The format this code writes; ``decode`` reads it and refuses others."""
NO_TIME: Final = 0xFFFF_FFFF
"""The stored time of a move whose answer time is unknown."""
_LEVEL: Final = 6
_ENCODER: Final = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
_SWAP: Final = sys.byteorder != "little"
"""Planes are little-endian whatever the machine."""


def encode(play: PlayLog) -> bytes:
    """The stored value of ``play``."""
    n = len(play.choices)
    header: dict[str, Any] = {"v": FORMAT, "n": n}
    first = play.decisions[0] if play.decisions else 1
    if play.decisions == tuple(range(first, first + n)):
        header["first"] = first
    else:
        header["decisions"] = list(play.decisions)
    if play.defaulted:
        header["defaulted"] = sorted(play.defaulted)
    if play.faults:
        header["faults"] = [[f.action, f.seat, f.reason, f.detail, f.decision]
                            for f in play.faults]
    body = _ENCODER.encode(header).encode() + b"\n"
    return zlib.compress(body + _planes(array("h", play.choices), 2)
                         + _planes(_micros(play.elapsed_ms), 4), _LEVEL)


def _micros(elapsed_ms: tuple[float | None, ...]) -> array[int]:
    """The times in whole microseconds (``map`` over C functions: a game has ~1,000)."""
    if None in elapsed_ms:
        return array("I", [NO_TIME if ms is None else _clamped(ms) for ms in elapsed_ms])
    known = cast(tuple[float, ...], elapsed_ms)
    if min(known, default=0.0) < 0.0 or max(known, default=0.0) * 1000.0 >= NO_TIME:
        return array("I", map(_clamped, known))
    return array("I", map(round, map((1000.0).__mul__, known)))


def _clamped(ms: float) -> int:
    return min(NO_TIME - 1, max(0, round(ms * 1000.0)))


def _planes(values: array[int], width: int) -> bytes:
    if _SWAP:
        values.byteswap()
    raw = values.tobytes()
    return b"".join(raw[i::width] for i in range(width))


def _unplanes(data: bytes, typecode: str, n: int) -> array[int]:
    values = array(typecode)
    width = values.itemsize
    raw = bytearray(n * width)
    for i in range(width):
        raw[i::width] = data[i * n:(i + 1) * n]
    values.frombytes(bytes(raw))
    if _SWAP:
        values.byteswap()
    return values


def decode(value: bytes) -> PlayLog:
    """A stored value read back; ``RecordError`` says what is wrong with a damaged one."""
    try:
        raw = zlib.decompress(value)
        line, _, rest = raw.partition(b"\n")
        header = json.loads(line)
    except (zlib.error, ValueError, TypeError) as exc:
        raise RecordError(f"the stored record is damaged ({exc})") from None
    if not isinstance(header, dict) or header.get("v") != FORMAT:
        version = header.get("v") if isinstance(header, dict) else None
        raise RecordError(f"the stored record has format {version!r}; this craits reads "
                          f"format {FORMAT}: upgrade craits")
    try:
        return _play(header, rest)
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordError(f"the stored record is damaged ({exc!r})") from None


def _play(header: dict[str, Any], rest: bytes) -> PlayLog:
    n = int(header["n"])
    if len(rest) != 6 * n:
        raise ValueError(f"{len(rest)} bytes of moves and times for {n} moves")
    choices = _unplanes(rest[:2 * n], "h", n)
    micros = _unplanes(rest[2 * n:], "I", n)
    if "decisions" in header:
        decisions = tuple(int(d) for d in header["decisions"])
    else:
        decisions = tuple(range(int(header["first"]), int(header["first"]) + n))
    if len(decisions) != n:
        raise ValueError(f"{len(decisions)} decision numbers for {n} moves")
    return PlayLog(
        tuple(choices), tuple(None if us == NO_TIME else us / 1000.0 for us in micros),
        decisions, frozenset(int(i) for i in header.get("defaulted", ())),
        tuple(LoggedFault(str(a), int(s), str(r), str(d), int(k))
              for a, s, r, d, k in header.get("faults", ())),
    )
