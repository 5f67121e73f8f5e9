"""``craits check`` end to end: real referee, real bot processes, good bots and broken ones."""

from __future__ import annotations

import pytest

from craits.check.positions import POSITIONS
from tests.referee.helpers import rawbot

from .helpers import check_json, check_process, forgetful

ALL_CHECKS = ["connect", *(p.name for p in POSITIONS), "full-game", "after-game"]


@pytest.mark.parametrize("spec", ["greedy", "random", rawbot("good")])
@pytest.mark.slow
def test_conformant_bots_pass_every_check(
    spec: str, capsys: pytest.CaptureFixture[str]
) -> None:
    result = check_json(capsys, spec)
    report = result.report()
    assert result.status == 0, report
    assert [c["name"] for c in report["checks"]] == ALL_CHECKS
    assert report["ok"] and report["failed"] == 0 and report["passed"] == len(ALL_CHECKS)
    for check in report["checks"][1:]:  # connecting includes the interpreter's start-up
        assert check["latency_ms"] is not None and 0 <= check["latency_ms"] < 1000, check
    by_name = {c["name"]: c for c in report["checks"]}
    assert by_name["one-card"]["detail"] == "play 7H one-card"
    assert by_name["count-draw"]["detail"] == "draw"
    assert by_name["upturn-9"]["detail"] in ("suit S", "suit C")


@pytest.mark.parametrize(
    ("mode", "reason"),
    [("illegal", "is not in your hand"), ("garbage", "the reply names no move")],
)
def test_bad_replies_fail_every_decision(
    mode: str, reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    result = check_json(capsys, rawbot(mode))
    assert result.status == 1
    assert result.failed_names() == ALL_CHECKS[1:]
    play = result.report()["checks"][1]
    assert play["detail"].startswith("reply refused: ") and reason in play["detail"]


@pytest.mark.slow
def test_a_slow_answer_fails_its_check(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAWBOT_SLEEP", "0.4")  # the raw bot sleeps on its 3rd decision
    result = check_json(capsys, rawbot("slow"), "--move-ms", "150")
    assert result.status == 1
    failed = result.failed_names()
    assert "count-draw" in failed and "full-game" in failed and "play" not in failed
    checks = {c["name"]: c for c in result.report()["checks"]}
    assert checks["count-draw"]["detail"] == "no valid answer within 150 ms"
    assert checks["full-game"]["detail"].startswith("3 fault(s): timeout")


def test_a_missing_one_card_announcement_fails_where_it_is_due(
    capsys: pytest.CaptureFixture[str],
) -> None:
    result = check_json(capsys, forgetful())
    assert result.status == 1
    assert result.failed_names() == ["one-card", "deal-announce"]
    detail = result.report()["checks"][ALL_CHECKS.index("one-card")]["detail"]
    assert detail.startswith("play 7H does not announce 'one card'")


def test_a_command_that_does_not_exist_is_one_clear_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    result = check_json(capsys, "no-such-bot-command --fast")
    assert result.status == 1
    (connect,) = result.report()["checks"]
    assert connect["name"] == "connect" and not connect["passed"]
    assert "never connected" in connect["detail"] and "not found" in connect["detail"]
    assert "Traceback" not in result.err


@pytest.mark.slow
def test_text_report_as_a_user_sees_it() -> None:
    result = check_process("greedy", "--verbose")
    assert result.status == 0, result
    lines = result.out.splitlines()
    assert lines[-1] == f"{len(ALL_CHECKS)} passed, 0 failed"
    assert any(line.split()[:2] == ["PASS", "upturn-8"] for line in lines)
    assert any("faced: the count" in line for line in lines)
    assert "Traceback" not in result.err


@pytest.mark.slow
def test_text_report_names_failures_and_the_log() -> None:
    result = check_process("sh -c 'exit 3'")  # starts, then dies before connecting
    assert result.status == 1
    lines = result.out.splitlines()
    assert lines[-1] == "0 passed, 1 failed"
    assert lines[1].split()[:2] == ["FAIL", "connect"]
    assert lines[2].startswith("bot stderr: ")
    assert result.err == ""


@pytest.mark.slow
def test_bad_options_are_usage_errors() -> None:
    result = check_process("greedy", "--move-ms", "0")
    assert result.status == 2 and result.out == "" and "Traceback" not in result.err
    assert result.err.splitlines()[-1] == (
        "craits check: error: argument --move-ms: must be at least 1, got 0")
