"""``sole_exception``: the one real error out of the groups trio's nurseries wrap it in."""

from __future__ import annotations

import sqlite3

import pytest
import trio

from craits.exception_groups import sole_exception


async def _fail_inside_two_nurseries() -> None:
    async with trio.open_nursery(), trio.open_nursery():
        raise LookupError("the real error")


def test_an_error_wrapped_by_nested_nurseries_comes_out_alone() -> None:
    with pytest.raises(BaseExceptionGroup) as info:
        trio.run(_fail_inside_two_nurseries)
    exc = sole_exception(info.value)
    assert type(exc) is LookupError and str(exc) == "the real error"


def test_a_group_of_several_errors_is_kept() -> None:
    several = ExceptionGroup("two", [KeyError("a"), ValueError("b")])
    group = ExceptionGroup("outer", [several])
    assert sole_exception(group) is several


def test_tables_failing_the_same_way_at_once_come_out_as_the_first_failure() -> None:
    """A full disk fails every busy table's next write: one error, not a traceback."""
    first = sqlite3.OperationalError("database or disk is full")
    second = sqlite3.OperationalError("database or disk is full")
    group = BaseExceptionGroup("run", [ExceptionGroup("tables", [first, second])])
    assert sole_exception(group) is first
