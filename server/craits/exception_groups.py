"""Unwrapping the exception groups trio's nurseries put around a single failure.

Trio wraps whatever leaves a nursery's body in an ``ExceptionGroup``, once per nursery it
crosses. Code whose background tasks never raise (watchers, a referee's server) still gets its
one real error wrapped, and a caller's ``except LaunchError`` would never match it. Used by
the referee (``running``) and the tournament runner, so it depends on nothing of either.
"""

from __future__ import annotations

from collections.abc import Iterator


def sole_exception(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The one exception inside ``group`` and any single-member groups nested in it.

    Several tables can fail the same way at once (a full disk fails every busy table's next
    write): when every exception in the group is of one type, the first stands for them all.
    A group holding exceptions of different types (different things really failed) is
    returned as it stands, at the first level where there is more than one: there is no single
    error to pick.
    """
    leaves = list(_leaves(group))
    if len({type(exc) for exc in leaves}) == 1:
        return leaves[0]
    exc: BaseException = group
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc


def _leaves(exc: BaseException) -> Iterator[BaseException]:
    """The exceptions inside ``exc`` (itself, unless it is a group), depth first."""
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from _leaves(inner)
    else:
        yield exc
