"""The Go starter (bots/go), built offline from proto/ with Debian 12's Go packages, through the
compliance suite.

The toolchain is optional for the README's commands (``.ci/setup`` installs it when it can) and
required in CI (``.ci/run`` insists): without it this module is skipped once with the reason,
or fails in CI (``tests/optional.py``). ``make`` rebuilds only what changed, into bots/go/build/
(not committed).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ..optional import require
from .compliance import BotCompliance, build_in
from .helpers import ROOT

GO = ROOT / "bots" / "go"
BUILD_TIMEOUT_S = 600
TOOLS = ("go", "make", "protoc", "protoc-gen-go", "protoc-gen-go-grpc")
LIBRARIES = (Path("/usr/share/gocode/src/google.golang.org/grpc"),
             Path("/usr/share/gocode/src/google.golang.org/protobuf"))


def _missing_toolchain() -> str | None:
    absent = [tool for tool in TOOLS if shutil.which(tool) is None]
    absent += [str(path) for path in LIBRARIES if not path.is_dir()]
    if not absent:
        return None
    return f"the Go bot's toolchain is not installed ({', '.join(absent)} missing)"


require(_missing_toolchain(), "bash .ci/install-go")


class TestGoBot(BotCompliance):
    name = "go"

    def build(self) -> list[str]:
        build_in(GO, ["make", "-s"], BUILD_TIMEOUT_S)
        return [str(GO / "build" / "craits-go-bot")]
