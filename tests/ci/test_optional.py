"""An optional tool's absence skips its tests once outside CI and fails them in CI."""

from __future__ import annotations

import pytest

from ..optional import require


def test_a_present_tool_asks_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    require(None, "bash .ci/install-cpp")


def test_a_missing_tool_skips_with_its_reason_outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"protoc missing: run `bash .ci/install-cpp`"):
        require("protoc missing", "bash .ci/install-cpp")


def test_a_missing_tool_fails_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=r"protoc missing: .* \(CI needs it\)"):
        require("protoc missing", "bash .ci/install-cpp")
