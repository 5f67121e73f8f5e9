"""Unwrapping the exception groups trio's nurseries put around a single failure.

Trio wraps whatever leaves a nursery's body in an ``ExceptionGroup``, once per nursery it
crosses. Code whose background tasks never raise (watchers, a referee's server) still gets its
one real error wrapped, and a caller's ``except LaunchError`` would never match it. Used by
the referee (``running``) and the tournament runner, so it depends on nothing of either.
"""

from __future__ import annotations


def sole_exception(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The one exception inside ``group`` and any single-member groups nested in it.

    A group that holds several exceptions (two tasks really failed) is returned as it stands,
    at the first level where there is more than one: there is no single error to pick.
    """
    exc: BaseException = group
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc
