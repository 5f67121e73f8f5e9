"""What a wrong Hello from a fresh network address costs the referee's thread, by how many
addresses the hub already remembers (issue 30, part 5: the bookkeeping of wrong tokens).

Drives a real ``BotHub`` directly (no gRPC: the stream's own cost is the same either way and
would hide the bookkeeping's): each Hello opens a session from a new address (IPv4, spread over
many /24s, or IPv6 within one /64), says Hello with a wrong token and is ended. Prints the
microseconds per Hello for each stretch of addresses.

    .venv/bin/python benchmarks/hub_addresses_bench.py [--addresses 20000] [--family 4|6]
"""

from __future__ import annotations

import argparse
import time

import trio

from craits.protocol import PROTOCOL_VERSION
from craits.referee.hub import BotHub
from craits.v1 import referee_pb2 as pb

HELLO = pb.BotPacket(messages=[pb.BotMessage(hello=pb.Hello(
    protocol_version=PROTOCOL_VERSION, token="not-a-token-of-this-referee-at-all"))])


def _address(i: int, family: int) -> str:
    if family == 6:
        return f"2001:db8::{i >> 16:x}:{i & 0xFFFF:x}"
    return f"10.{(i >> 16) & 0xFF}.{(i >> 8) & 0xFF}.{i & 0xFF}"


async def _run(addresses: int, family: int, stretch: int) -> list[tuple[int, float]]:
    hub = BotHub()
    hub.issue_token("bot")
    found = []
    start = time.perf_counter()
    for i in range(addresses):
        session = hub.on_open(pb.RefereeMessage, lambda: None, _address(i, family))
        hub.on_packet(session, HELLO)
        hub.on_close(session)
        if (i + 1) % stretch == 0:
            now = time.perf_counter()
            found.append((i + 1, (now - start) / stretch * 1e6))
            start = now
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--addresses", type=int, default=20_000)
    parser.add_argument("--family", type=int, choices=(4, 6), default=4)
    parser.add_argument("--stretch", type=int, default=2_000)
    args = parser.parse_args()
    for upto, us in trio.run(_run, args.addresses, args.family, args.stretch):
        print(f"addresses {upto - args.stretch + 1:>6}-{upto:<6} {us:9.1f} us per wrong Hello")


if __name__ == "__main__":
    main()
