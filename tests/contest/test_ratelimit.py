"""The upload rate limit, on made-up clocks."""

from __future__ import annotations

from craits.contest.config import UploadLimits
from craits.contest.ratelimit import check_rate

LIMITS = UploadLimits(per_window=3, window_minutes=10)


def test_below_the_limit_is_allowed() -> None:
    assert check_rate([], 0.0, LIMITS) is None
    assert check_rate([100.0, 200.0], 300.0, LIMITS) is None


def test_at_the_limit_waits_for_the_oldest_to_leave_the_window() -> None:
    limited = check_rate([100.0, 200.0, 300.0], 400.0, LIMITS)
    assert limited is not None
    assert limited.retry_after_s == 300  # 100 + 600 - 400
    assert "at most 3 in 10 minutes" in limited.message and "300 s" in limited.message
    assert check_rate([100.0, 200.0, 300.0], 700.5, LIMITS) is None


def test_old_uploads_do_not_count() -> None:
    assert check_rate([0.0, 1.0, 2.0, 650.0], 700.0, LIMITS) is None


def test_the_wait_is_never_zero() -> None:
    limited = check_rate([0.0, 1.0, 2.0], 599.9, LIMITS)
    assert limited is not None and limited.retry_after_s == 1
