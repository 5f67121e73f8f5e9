"""The Java starter (bots/java), built with javac against Debian 12's gRPC-Java jars (no Maven),
through the compliance suite.

The toolchain is optional for the README's commands (``.ci/setup`` installs it when it can) and
required in CI (``.ci/run`` insists): without it this module is skipped once with the reason,
or fails in CI (``tests/optional.py``). ``make`` rebuilds only what changed, into
bots/java/build/ (not committed).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ..optional import require
from .compliance import BotCompliance, build_in
from .helpers import ROOT

JAVA = ROOT / "bots" / "java"
BUILD_TIMEOUT_S = 600
TOOLS = ("java", "javac", "jar", "make", "protoc", "grpc_java_plugin")
JARS = ("grpc-netty", "grpc-stub", "protobuf", "netty-codec-http2", "perfmark-api", "gson",
        "geronimo-annotation-1.3-spec")


def _missing_toolchain() -> str | None:
    absent = [tool for tool in TOOLS if shutil.which(tool) is None]
    absent += [f"{jar}.jar" for jar in JARS if not Path(f"/usr/share/java/{jar}.jar").is_file()]
    if not absent:
        return None
    return f"the Java bot's toolchain is not installed ({', '.join(absent)} missing)"


require(_missing_toolchain(), "bash .ci/install-java")


class TestJavaBot(BotCompliance):
    name = "java"

    def build(self) -> list[str]:
        build_in(JAVA, ["make", "-s"], BUILD_TIMEOUT_S)
        return [str(JAVA / "build" / "craits-java-bot")]
