"""How the engine's build is chosen (``craits/engine/native.py``): compiled only when built from
the sources on disk, and never when ``CRAITS_PURE_ENGINE`` asks for pure Python."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from craits.engine import native

PROBE = "import craits.engine as e; print(e.COMPILED, e.NOT_COMPILED_BECAUSE)"


def test_the_environment_variable_forces_pure_python() -> None:
    env = {**os.environ, native.PURE_ENV: "1"}
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                          text=True, check=True, timeout=60)
    assert done.stdout.strip() == f"False {native.PURE_ENV} is set"


def test_zero_does_not_force_pure_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(native.PURE_ENV, "0")
    assert not native.pure_forced()


def test_a_build_of_other_sources_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(native.PURE_ENV, raising=False)
    stamp = tmp_path / "SOURCES"
    monkeypatch.setattr(native, "STAMP", stamp)
    assert native.native_status() == "not built (bash .ci/build-engine)"
    stamp.write_text("0" * 64 + "\n")
    assert (native.native_status() or "").startswith("built from other sources")
    stamp.write_text(native.source_digest() + "\n")
    assert native.native_status() is None
