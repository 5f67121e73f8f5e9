"""``sole_exception``: what the commands catch out of trio's exception groups."""

from __future__ import annotations

import sqlite3

from craits.referee.running import sole_exception


def test_one_exception_wrapped_by_nested_nurseries_comes_out_as_itself() -> None:
    error = LookupError("no such bot")
    assert sole_exception(BaseExceptionGroup("outer", [ExceptionGroup("inner", [error])])) is error


def test_tables_failing_the_same_way_at_once_come_out_as_the_first_failure() -> None:
    """A full disk fails every busy table's next write: one error, not a traceback."""
    first = sqlite3.OperationalError("database or disk is full")
    second = sqlite3.OperationalError("database or disk is full")
    group = BaseExceptionGroup("run", [ExceptionGroup("tables", [first, second])])
    assert sole_exception(group) is first


def test_different_failures_stay_a_group() -> None:
    group = ExceptionGroup("run", [KeyError("a"), sqlite3.OperationalError("b")])
    assert sole_exception(group) is group
