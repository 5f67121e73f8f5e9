"""Tools that only some tests need and that the README's set-up installs when it can.

``.ci/setup`` installs the optional tools with a one-line note when it cannot (no root, a busy
apt), so the README's test command must not then fail for a tool it was told it may lack: such a
module is skipped, once, with the reason and the command that installs the tool. CI (``CI`` set,
as ``.ci/run`` runs) insists on every tool: there a missing one fails the module instead, so no
test can go unrun unnoticed where it matters.
"""

from __future__ import annotations

import os

import pytest


def in_ci() -> bool:
    """Whether this is CI's run (``.ci/run`` installs every tool the tests need)."""
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def require(missing: str | None, install: str) -> None:
    """Call at a test module's top level: nothing when ``missing`` is None; else skip the
    whole module saying what is missing and ``install`` (the command that brings it), or in
    CI fail it."""
    if missing is None:
        return
    reason = f"{missing}: run `{install}`"
    if in_ci():
        pytest.fail(f"{reason} (CI needs it)", pytrace=False)
    pytest.skip(reason, allow_module_level=True)
