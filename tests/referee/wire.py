"""Reading what the raw test bot captured at the wire."""

from __future__ import annotations

import base64
from pathlib import Path

from craits.v1 import referee_pb2 as pb


def read_capture(path: Path) -> list[pb.RefereePacket]:
    """Every packet the bot received, in order."""
    packets = []
    for line in path.read_text().splitlines():
        packet = pb.RefereePacket()
        packet.ParseFromString(base64.b64decode(line))
        packets.append(packet)
    return packets
