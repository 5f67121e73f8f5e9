"""The committed generated code is what proto/generate.sh makes from the committed .proto."""

from __future__ import annotations

import filecmp
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "server" / "craits" / "v1"


def test_generated_code_is_fresh(tmp_path: Path) -> None:
    subprocess.run(
        ["bash", str(ROOT / "proto" / "generate.sh"), str(tmp_path)],
        check=True, capture_output=True, env={"PYTHON": sys.executable, "PATH": "/usr/bin:/bin"},
    )
    fresh = tmp_path / "craits" / "v1"
    names = sorted(p.name for p in fresh.iterdir() if p.is_file())
    assert names == sorted(p.name for p in GENERATED.iterdir() if p.is_file())
    _, mismatch, errors = filecmp.cmpfiles(fresh, GENERATED, names, shallow=False)
    assert not mismatch and not errors, f"stale generated code: {mismatch + errors}; " \
        "run `bash proto/generate.sh` and commit the result"
