"""A bot's kind and a fault's kind are ``StrEnum``s whose values are the old strings, so every
configuration, record and printed line is what it was."""

from __future__ import annotations

import json

import pytest

from craits.referee.policy import Fault, FaultKind
from craits.tournament.plan.config import BotKind, BotSpec


def test_a_bot_kind_given_as_a_string_becomes_a_bot_kind() -> None:
    spec = BotSpec("far", "remote")
    assert spec.kind == "remote"
    assert spec.kind is BotKind.REMOTE
    assert BotSpec("x").kind is BotKind.BUNDLED
    assert repr(spec) == repr(BotSpec("far", BotKind.REMOTE))
    assert "kind='remote'" in repr(spec)


def test_an_unknown_bot_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="bundeld"):
        BotSpec("x", "bundeld")


def test_a_fault_kind_is_stored_and_printed_as_its_string() -> None:
    fault = Fault(1, FaultKind.BAD_REPLIES, "garbage", 4, strike=True, forfeit=False)
    assert json.dumps([fault.kind]) == '["bad_replies"]'
    assert f"seat {fault.seat} {fault.kind}" == "seat 1 bad_replies"
    assert repr(fault) == repr(Fault(1, "bad_replies", "garbage", 4, True, False))
    assert {k.value for k in FaultKind} == {"timeout", "bad_replies", "disconnect", "crash",
                                           "error"}
