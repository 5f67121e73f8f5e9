"""The layer contract (``[tool.importlinter]`` in pyproject.toml) holds, and catches an upward
import: ``lint-imports`` runs on the tree as it is, then on a copy with one planted."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LINT = Path(sys.executable).with_name("lint-imports")


def lint(root: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` over the packages under ``root``, with them first on the path."""
    path = os.pathsep.join(str(root / d) for d in ("server", "sdk", "bots"))
    return subprocess.run([str(LINT), "--no-cache"], cwd=root, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": path}, timeout=300, check=False)


def copy_of_tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    ignore = shutil.ignore_patterns("__pycache__", "_native", "*.so", "build")
    for part in ("server", "sdk", "bots/craits_bots"):
        shutil.copytree(REPO / part, root / part, ignore=ignore)
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    return root


def test_the_tree_keeps_its_layers(tmp_path: Path) -> None:
    done = lint(copy_of_tree(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "broken" not in done.stdout.lower().replace("0 broken", "")


@pytest.mark.slow
def test_an_upward_import_breaks_the_contract(tmp_path: Path) -> None:
    root = copy_of_tree(tmp_path)
    planted = root / "server" / "craits" / "ratings" / "stats.py"
    planted.write_text(planted.read_text() + "\nfrom craits.tournament.store import database\n")
    done = lint(root)
    assert done.returncode != 0
    assert "craits.ratings is not allowed to import craits.tournament" in done.stdout
    assert "craits.ratings.stats -> craits.tournament.store.database" in done.stdout
