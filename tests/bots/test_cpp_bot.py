"""The C++ bot (bots/cpp), built from proto/ with Debian's gRPC, through the compliance suite.

It shows that "any language with gRPC" holds for a compiled one, from the docs alone
(writing-a-bot.md's compiled languages, protocol.md's minimal bot). The toolchain is optional for
the README's commands (``.ci/setup`` installs it when it can) and required in CI (``.ci/run``
insists): without it this module is skipped once with the reason, or fails in CI
(``tests/optional.py``). ``make`` rebuilds only what changed, into bots/cpp/build/ (not
committed).
"""

from __future__ import annotations

import shutil

from ..optional import require
from .compliance import BotCompliance, build_in
from .helpers import ROOT

CPP = ROOT / "bots" / "cpp"
BUILD_TIMEOUT_S = 1200
TOOLS = ("g++", "make", "protoc", "grpc_cpp_plugin", "pkg-config")


def _missing_toolchain() -> str | None:
    absent = [tool for tool in TOOLS if shutil.which(tool) is None]
    if not absent:
        return None
    return f"the C++ bot's toolchain is not installed ({', '.join(absent)} missing)"


require(_missing_toolchain(), "bash .ci/install-cpp")


class TestCppBot(BotCompliance):
    name = "cpp"

    def build(self) -> list[str]:
        build_in(CPP, ["make", "-s"], BUILD_TIMEOUT_S)
        return [str(CPP / "build" / "craits-cpp-bot")]
