"""Tests of the research code kept in ``benchmarks/`` (the models measured against the ratings).

The benchmarks run as scripts, each with its own directory on the import path (they import one
another by bare name, and mypy is configured the same way); importing this package puts that
directory on the path once, so the tests here import them exactly as the benchmarks do.
"""

from __future__ import annotations

import sys
from pathlib import Path

BENCHMARKS = str(Path(__file__).resolve().parents[2] / "benchmarks")
if BENCHMARKS not in sys.path:
    sys.path.append(BENCHMARKS)
