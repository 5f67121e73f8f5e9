"""Option values checked as the command line is read: ranges, formats, names.

A bad value must be refused at once with an error that names the option, never accepted and then
wrapped, re-dialled or failed inside the referee (where it was blamed on the bots).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from .helpers import Runner

TWO_BOTS = ("--bot", "a", "--bot", "b")


@pytest.mark.parametrize(("port", "problem"), [("99999", "at most 65535"), ("-1", "at least 0"),
                                               ("http", "whole number")])
def test_serve_refuses_a_port_out_of_range(cli: Runner, port: str, problem: str) -> None:
    cli("serve", "--port", port, *TWO_BOTS).assert_option_error("--port", problem)


@pytest.mark.parametrize(("value", "problem"), [("0", "at least 1"), ("two", "whole number")])
@pytest.mark.parametrize("command", [("serve", *TWO_BOTS), ("simulate",)])
def test_games_is_a_whole_number_from_one(
    cli: Runner, command: tuple[str, ...], value: str, problem: str
) -> None:
    cli(*command, "--games", value).assert_option_error("--games", problem)


@pytest.mark.parametrize("server", ["bad", "127.0.0.1:abc", "localhost:99999", ":50051",
                                    "127.0.0.1:0", "local host:1"])
def test_pipe_refuses_a_server_that_is_not_host_port(cli: Runner, server: str) -> None:
    result = cli("pipe", "--server", server, "--token", "t", "--", "cat")
    result.assert_usage_error("--server", repr(server), "HOST:PORT")


def test_a_bad_craits_server_is_named_as_such(
    cli: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRAITS_SERVER", "localhost:99999")
    cli("pipe", "--token", "t", "--", "cat").assert_usage_error("CRAITS_SERVER", "HOST:PORT")


@pytest.mark.parametrize("value", ["-1", "0", "nan", "inf", "soon"])
@pytest.mark.parametrize("command", [("serve", *TWO_BOTS), ("check", "random")])
def test_connect_timeout_is_a_positive_finite_number(
    cli: Runner, command: tuple[str, ...], value: str
) -> None:
    cli(*command, "--connect-timeout", value).assert_option_error("--connect-timeout", "seconds")


@pytest.mark.parametrize(
    ("option", "value", "problem"),
    [
        ("--move-ms", "5000000000", "at most 3600000"),
        ("--move-ms", "-5", "at least 1"),
        ("--bank-ms", "-1", "at least 0"),
        ("--bank-ms", "86400001", "at most 86400000"),
        ("--max-retries", "99999999999", "at most 1000000"),
        ("--max-strikes", "0", "at least 1"),
        ("--grace-ms", "-1", "at least 0"),
        ("--grace-ms", "3600001", "at most 3600000"),
    ],
)
@pytest.mark.parametrize("command", [("match", *TWO_BOTS), ("serve", *TWO_BOTS)])
def test_time_and_policy_options_are_range_checked_by_name(
    cli: Runner, command: tuple[str, ...], option: str, value: str, problem: str
) -> None:
    cli(*command, option, value).assert_option_error(option, problem)


@pytest.mark.parametrize(("value", "problem"), [("99999999999999", "at most"), ("0", "at least 1")])
def test_check_move_ms_is_range_checked(cli: Runner, value: str, problem: str) -> None:
    cli("check", "random", "--move-ms", value).assert_option_error("--move-ms", problem)


def test_pipe_attempts_counts_failed_dials_so_it_is_at_least_1(cli: Runner) -> None:
    result = cli("pipe", "--server", "h:1", "--token", "t", "--attempts", "0", "--", "cat")
    result.assert_usage_error("--attempts", "at least 1")


@pytest.mark.parametrize("command", [("match", "--bot", "", "--bot", "random"), ("check", " "),
                                     ("play", "--bot", "")])
def test_an_empty_bot_spec_is_refused(cli: Runner, command: tuple[str, ...]) -> None:
    option = "--bot" if "--bot" in command else "BOT_SPEC"
    cli(*command).assert_option_error(option, "SPEC cannot be empty")


@pytest.mark.parametrize("name", ["bad name", "émile", "_x", "x" * 65])
def test_serve_bot_names_follow_the_tournament_rule(cli: Runner, name: str) -> None:
    result = cli("serve", "--bot", name, "--bot", "b")
    result.assert_usage_error(f"bad --bot {name!r}", "not a plain name")


def test_craits_pipe_gives_up_after_as_many_failed_dials_as_the_sdk() -> None:
    """docs/tournaments.md promises remote bots ~15 s of re-dialling either way."""
    from craits.cli.pipe import DEFAULT_ATTEMPTS as PIPE
    from craits_sdk.client import DEFAULT_ATTEMPTS as SDK
    from craits_sdk.client import Options

    assert PIPE == SDK == Options("h:1", "t").attempts == 8
