"""A version's states and the only moves between them.

An upload becomes a version in ``validating``: it waits in the validation queue (the versions in
this state, oldest first) until a validator plays it in the sandbox. Validation ends in
``rated`` (it plays and has a rating) or ``rejected`` (with the reason and the log excerpt its
owner sees). A rated version that faults too often is ``suspended`` (with the reason); the
organiser may reinstate it (back to ``rated``) or a re-check may. Nothing leaves ``rejected``: a
fix is a new upload, so a version's content and verdict never change under its id.

The table below is the whole state machine: the store refuses any other move
(``VersionStateError``), so a later validator, game loop or organiser command cannot put a
version into a state the board does not expect.
"""

from __future__ import annotations

import enum
from typing import Final


class VersionState(enum.StrEnum):
    """Where a version stands."""

    VALIDATING = "validating"
    REJECTED = "rejected"
    RATED = "rated"
    SUSPENDED = "suspended"


MOVES: Final[dict[VersionState, frozenset[VersionState]]] = {
    VersionState.VALIDATING: frozenset({VersionState.RATED, VersionState.REJECTED}),
    VersionState.RATED: frozenset({VersionState.SUSPENDED}),
    VersionState.SUSPENDED: frozenset({VersionState.RATED}),
    VersionState.REJECTED: frozenset(),
}
"""From each state, the states a version may move to."""

NEEDS_REASON: Final = frozenset({VersionState.REJECTED, VersionState.SUSPENDED})
"""States that are always entered with a reason for the owner."""


class VersionStateError(ValueError):
    """A move the state machine does not allow (a bug in the caller, not a user mistake)."""


def check_move(current: VersionState, new: VersionState, reason: str | None) -> None:
    """Raise ``VersionStateError`` unless ``current`` may move to ``new`` with ``reason``."""
    if new not in MOVES[current]:
        allowed = ", ".join(sorted(MOVES[current])) or "nothing (it is final)"
        raise VersionStateError(f"a {current} version cannot become {new}; it may become "
                                f"{allowed}")
    if new in NEEDS_REASON and not (reason and reason.strip()):
        raise VersionStateError(f"a version becomes {new} only with a reason for its owner")
