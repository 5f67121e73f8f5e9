"""Two processes of one bot passing a hand between them through the kernel while they play.

The attack of issue 30: at duplicate deals a bot plays every seating of a deal set, one process
(slot) per seating. If two of its processes run at once, the one that holds a hand can tell the
other, whose opponent holds the same cards in its own seating, through anything both can see and
one can move. The channel here is the machine's number of tasks (``sysinfo().procs``), which no
``/proc`` mask hides: the sender starts ``THREADS`` idle threads or ends them, the receiver
samples the count. Each bit is two halves of ``HALF_S``, high-low for 1, low-high for 0, so the
machine's own drift cancels out (a differential code). Both ends meet on wall-clock frames of
``FRAME_S`` (the clock is the machine's, the same in every sandbox).

- At seat 0 (seating 0, when it is listed first at tables of two) it is the *sender*: from its
  first decision it sends its dealt hand, six bits a card, in each of ``FRAMES`` frames.
- At seat 1 (seating 1, where the opponent at seat 0 holds those same cards) it is the
  *receiver*: at its first decision it waits for the second frame boundary, decodes
  ``LISTENED`` frames and writes what it decoded, ``DECODED <game id> <card numbers>``; the
  test checks that against the opponent's dealt hand rebuilt from the stored game.

Otherwise it plays the first legal move. Played seating-major (the defence), the sender's process
has ended before the receiver's starts: the receiver decodes the machine's noise.
"""

from __future__ import annotations

import _thread
import ctypes
import math
import sys
import threading
import time

from craits_sdk import Bot, MoveLike, View, run

THREADS = 150
HALF_S = 0.08
BITS_PER_CARD = 6
FRAME_S = 9.0
FRAMES = 6
LISTENED = 3
DEALT = 8
"""Cards sent: a first hand's deal at tables of two (short games)."""


class _SysInfo(ctypes.Structure):
    _fields_ = [("uptime", ctypes.c_long), ("loads", ctypes.c_ulong * 3),
                ("totalram", ctypes.c_ulong), ("freeram", ctypes.c_ulong),
                ("sharedram", ctypes.c_ulong), ("bufferram", ctypes.c_ulong),
                ("totalswap", ctypes.c_ulong), ("freeswap", ctypes.c_ulong),
                ("procs", ctypes.c_ushort), ("pad", ctypes.c_ushort),
                ("totalhigh", ctypes.c_ulong), ("freehigh", ctypes.c_ulong),
                ("mem_unit", ctypes.c_uint), ("_reserved", ctypes.c_char * 8)]


_libc = ctypes.CDLL(None, use_errno=True)


def tasks() -> int:
    """The machine's number of tasks (every process and thread of every namespace)."""
    info = _SysInfo()
    _libc.sysinfo(ctypes.byref(info))
    return int(info.procs)


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def sleep_until(moment: float) -> None:
    while (left := moment - time.time()) > 0:
        time.sleep(min(left, 0.5))


def next_frame(after: float) -> float:
    return math.ceil(after / FRAME_S) * FRAME_S


def bits_of(cards: list[int]) -> list[int]:
    return [(card >> i) & 1 for card in cards for i in reversed(range(BITS_PER_CARD))]


def send(cards: list[int]) -> None:
    """Send ``cards`` in each of the next ``FRAMES`` frames (small stacks: the threads must fit
    in the process's address-space limit)."""
    threading.stack_size(1 << 16)
    start = next_frame(time.time())
    for frame in range(FRAMES):
        at = start + frame * FRAME_S
        for i, bit in enumerate(bits_of(cards)):
            for half, high in enumerate((bit == 1, bit == 0)):
                begin = at + (2 * i + half) * HALF_S
                sleep_until(begin)
                if high:  # raw threads: ``Thread.start`` waits for each to run, too slow
                    release = threading.Event()
                    for _ in range(THREADS):
                        _thread.start_new_thread(release.wait, ())
                    sleep_until(begin + HALF_S * 0.9)
                    release.set()


def receive(count: int) -> list[int]:
    """Decode ``count`` cards from ``LISTENED`` frames, from the frame after next on: each bit
    is the sign of its two halves' difference summed over the frames (a burst of the machine's
    own activity in one frame is outvoted by the others)."""
    first = next_frame(time.time()) + FRAME_S
    sums = [0.0] * (count * BITS_PER_CARD)
    for frame in range(LISTENED):
        at = first + frame * FRAME_S
        for i in range(len(sums)):
            halves = []
            for half in range(2):
                begin = at + (2 * i + half) * HALF_S
                sleep_until(begin + HALF_S * 0.3)
                samples = []
                while time.time() < begin + HALF_S * 0.8:
                    samples.append(tasks())
                    time.sleep(0.003)
                halves.append(sorted(samples)[len(samples) // 2] if samples else 0)
            sums[i] += halves[0] - halves[1]
    bits = "".join("1" if total > 0 else "0" for total in sums)
    return [int(bits[c * BITS_PER_CARD:(c + 1) * BITS_PER_CARD], 2) for c in range(count)]


class Colluder(Bot):
    """Sends at seat 0, receives at seat 1, at the first decision of each game."""

    def __init__(self) -> None:
        super().__init__()
        self.games: set[str] = set()

    def decide(self, view: View) -> MoveLike:
        if view.game_id not in self.games:
            self.games.add(view.game_id)
            cards = [int(card) for card in view.hand][:DEALT]
            if view.seat == 0:
                say(f"SENT {view.game_id} {' '.join(map(str, cards))}")
                threading.Thread(target=send, args=(cards,), daemon=True).start()
            else:
                decoded = receive(DEALT)
                say(f"DECODED {view.game_id} {' '.join(map(str, decoded))}")
        return view.legal_moves[0]


if __name__ == "__main__":
    run(Colluder)
