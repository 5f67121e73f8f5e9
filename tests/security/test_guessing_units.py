"""Wrong tokens by address and by prefix, on the hub's own clock (issue 30, part 5): a right
token is never refused, a prefix of many addresses is held like a few, the bookkeeping stays
bounded, and session ids say nothing."""

from __future__ import annotations

import trio

from craits.protocol import PROTOCOL_VERSION
from craits.referee import hub as hub_module
from craits.referee.hub import BotHub, prefix_of
from craits.v1 import referee_pb2 as pb

BAD, ABUSE = pb.ERROR_CODE_BAD_TOKEN, pb.ERROR_CODE_ABUSE


def _told(hub: BotHub, token: str, peer: str) -> int:
    """What a stream from ``peer`` saying Hello with ``token`` is told first: its error code,
    or 0 for a Welcome."""
    messages: list[pb.RefereeMessage] = []

    def compose() -> pb.RefereeMessage:
        messages.append(pb.RefereeMessage())
        return messages[-1]

    session = hub.on_open(compose, lambda: None, peer)
    hub.on_packet(session, pb.BotPacket(messages=[pb.BotMessage(hello=pb.Hello(
        protocol_version=PROTOCOL_VERSION, token=token))]))
    hub.on_close(session)
    return messages[0].error.code if messages[0].HasField("error") else 0


def test_a_prefix_of_many_addresses_is_held_like_a_few_and_a_right_token_always_gets_in() -> None:
    """One client cycling through addresses of one /64 (or /24) gets the prefix's budget, not
    one per address; another prefix is untouched; a contestant inside the held prefix, with its
    right token, is welcomed."""
    async def main() -> dict[str, list[int]]:
        hub = BotHub(now=lambda: 1000.0)
        token = hub.issue_token("contestant").token
        burst = hub_module.PREFIX_BAD_TOKEN_BURST
        return {
            "v6": [_told(hub, "guess", f"2001:db8:0:1::{i:x}") for i in range(burst + 3)],
            "v4": [_told(hub, "guess", f"198.51.100.{i}") for i in range(burst + 3)],
            "other": [_told(hub, "guess", "2001:db8:0:2::1"), _told(hub, "guess", "203.0.113.9")],
            "right": [_told(hub, token, "2001:db8:0:1::ffff"), _told(hub, token, "198.51.100.7")],
        }

    found = trio.run(main)
    burst = hub_module.PREFIX_BAD_TOKEN_BURST
    assert found["v6"] == found["v4"] == [BAD] * burst + [ABUSE] * 3
    assert found["other"] == [BAD, BAD]
    assert found["right"] == [0, 0]


def test_prefixes_are_a_24_and_a_64_and_mapped_addresses_count_as_ipv4() -> None:
    assert prefix_of("198.51.100.7") == prefix_of("198.51.100.250") != prefix_of("198.51.101.7")
    assert prefix_of("::ffff:198.51.100.9") == prefix_of("198.51.100.7")
    assert prefix_of("2001:db8::1") == prefix_of("2001:db8::ffff:1") != prefix_of("2001:db8:0:1::1")
    assert prefix_of("") == prefix_of("not an address") == ""


def test_the_bookkeeping_stays_bounded_whatever_the_number_of_addresses() -> None:
    async def main() -> tuple[int, int]:
        hub = BotHub(now=lambda: 1000.0)
        for i in range(hub_module._PEERS_TRACKED + 500):
            _told(hub, "guess", f"10.{i >> 8 & 255}.{i & 255}.1")  # each in a /24 of its own
        return len(hub._bad_tokens), len(hub._bad_prefixes)

    assert trio.run(main) == (hub_module._PEERS_TRACKED, hub_module._PEERS_TRACKED)


def test_session_ids_are_opaque() -> None:
    """A counter (s1, s2, ...) told a re-dialling bot how many streams opened in between."""
    async def main() -> list[str]:
        hub = BotHub()
        entry = hub.issue_token("bot")
        ids = []
        for _ in range(3):
            messages: list[pb.RefereeMessage] = []

            def compose(box: list[pb.RefereeMessage] = messages) -> pb.RefereeMessage:
                box.append(pb.RefereeMessage())
                return box[-1]

            session = hub.on_open(compose, lambda: None)
            hub.on_packet(session, pb.BotPacket(messages=[pb.BotMessage(hello=pb.Hello(
                protocol_version=PROTOCOL_VERSION, token=entry.token))]))
            ids.append(messages[0].welcome.session_id)
            hub.on_open(lambda: pb.RefereeMessage(), lambda: None)  # someone else's stream
        return ids

    ids = trio.run(main)
    assert len(set(ids)) == 3 and all(len(i) >= 16 for i in ids)
    assert not any(i.lstrip("s").isdigit() for i in ids)
