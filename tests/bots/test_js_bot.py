"""The JavaScript bot (bots/js) through the compliance suite, and its own heuristic and unit tests.

Node and the bot's packages are required, never skipped: CI installs them (.ci/setup runs
``npm ci``), and a missing runtime must show up as a failure.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from .compliance import BotCompliance
from .helpers import JS_BOT, match, spec

NODE_MODULES = JS_BOT.parent / "node_modules"


class TestJsBot(BotCompliance):
    name = "js"

    def build(self) -> list[str]:
        node = shutil.which("node")
        assert node, "node is required for the JavaScript bot (Node.js 20)"
        assert (NODE_MODULES / "@grpc" / "grpc-js").is_dir(), "run `bash .ci/setup` (npm ci)"
        return [node, str(JS_BOT)]

    @pytest.mark.slow
    def test_heuristic_beats_random_over_a_few_games(self, argv: list[str],
                                                     tmp_path: Path) -> None:
        totals = [0, 0]
        for seed in (1, 2, 3):
            result = match([" ".join(argv), "random"], spec(f"js-{seed}", seed=seed), tmp_path)
            assert result.faults == []
            totals = [a + b for a, b in zip(totals, result.totals, strict=True)]
        assert totals[0] < totals[1]

    @pytest.mark.slow
    def test_node_unit_tests_pass(self, argv: list[str]) -> None:
        proc = subprocess.run(
            [argv[0], "--test", "test/"], cwd=JS_BOT.parent, capture_output=True, text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
