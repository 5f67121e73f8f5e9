"""The schema follows its own conventions: every message, enum, value and field is commented,
enums start with *_UNSPECIFIED = 0, and the handshake carries the protocol version."""

from __future__ import annotations

import re
from pathlib import Path

from craits.v1 import referee_pb2 as pb

PROTO = Path(__file__).resolve().parents[2] / "proto" / "craits" / "v1" / "referee.proto"
DECLARATION = re.compile(
    r"^\s*(message|enum|service|rpc|oneof)\s+\w+"  # a block
    r"|^\s*(optional |repeated )?[\w.]+\s+\w+\s*=\s*\d+;"  # a field
    r"|^\s*[A-Z][A-Z0-9_]*\s*=\s*\d+;"  # an enum value
)


def test_every_declaration_has_a_comment_above_it() -> None:
    lines = PROTO.read_text().splitlines()
    missing = [
        f"{i + 1}: {line.strip()}" for i, line in enumerate(lines)
        if DECLARATION.match(line) and not lines[i - 1].strip().startswith("//")
    ]
    assert not missing, "uncommented declarations:\n" + "\n".join(missing)


def test_enums_have_unspecified_zero() -> None:
    for enum in pb.DESCRIPTOR.enum_types_by_name.values():
        zero = enum.values_by_number[0]
        assert zero.name.endswith("_UNSPECIFIED"), enum.name


def test_hello_and_welcome_carry_the_protocol_version() -> None:
    assert "protocol_version" in pb.Hello.DESCRIPTOR.fields_by_name
    assert "protocol_version" in pb.Welcome.DESCRIPTOR.fields_by_name
