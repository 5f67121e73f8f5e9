"""The Rust starter (bots/rust), a pipe bot built offline with cargo from Debian 12's crates,
through the compliance suite behind ``craits pipe``.

Rust is a pipe bot because Debian 12 packages no Rust gRPC stack (no tonic, no grpcio), and
cargo may reach no registry but Debian's. The toolchain is optional for the README's commands
(``.ci/setup`` installs it when it can) and required in CI (``.ci/run`` insists): without it
this module is skipped once with the reason, or fails in CI (``tests/optional.py``). cargo
rebuilds only what changed, into bots/rust/build/ (not committed).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from ..optional import require
from .compliance import BotCompliance, build_in
from .helpers import ROOT

RUST = ROOT / "bots" / "rust"
BUILD_TIMEOUT_S = 600
REGISTRY = Path("/usr/share/cargo/registry")


def _missing_toolchain() -> str | None:
    absent = [tool for tool in ("cargo", "rustc") if shutil.which(tool) is None]
    if not any(REGISTRY.glob("serde_json-*")):
        absent.append(f"serde_json in {REGISTRY}")
    if not absent:
        return None
    return f"the Rust bot's toolchain is not installed ({', '.join(absent)} missing)"


require(_missing_toolchain(), "bash .ci/install-rust")


class TestRustBot(BotCompliance):
    name = "rust"

    def build(self) -> list[str]:
        build_in(RUST, ["cargo", "build", "--release", "--quiet"], BUILD_TIMEOUT_S)
        binary = RUST / "build" / "release" / "craits-rust-bot"
        return [sys.executable, "-m", "craits", "pipe", "--", str(binary)]
