"""The TOML table reader on its own: every error names the full path of the key it is about."""

from __future__ import annotations

import pytest

from craits.tournament.plan.tomlreader import ConfigError, TableReader, parse_toml

DOC = """
[server]
port = 8080
[[server.users]]
name = "ann"
[[server.users]]
name = "bob"
admin = "yes"
"""


def test_values_are_read_with_defaults_for_absent_keys() -> None:
    server = TableReader(parse_toml(DOC, "doc.toml"), "").table("server")
    assert server.integer("port", 80, 1, 65_535) == 8080
    assert server.text("host", "localhost") == "localhost"
    users = server.array_of_tables("users")
    assert [u.text("name", "", required=True) for u in users] == ["ann", "bob"]


def test_errors_name_nested_paths() -> None:
    server = TableReader(parse_toml(DOC, "doc.toml"), "").table("server")
    bob = server.array_of_tables("users")[1]
    with pytest.raises(ConfigError, match=r"^server\.users\[1\]\.admin: must be true or false"):
        bob.boolean("admin", False)
    with pytest.raises(ConfigError, match=r"^server\.port: must be a whole number from 1 to 100"):
        server.integer("port", 80, 1, 100)


def test_finish_rejects_the_first_key_nobody_read() -> None:
    bob = TableReader(parse_toml(DOC, "doc.toml"), "").table("server").array_of_tables("users")[1]
    bob.text("name", "")
    with pytest.raises(ConfigError, match=r"^server\.users\[1\]\.admin: unknown key"):
        bob.finish()


def test_a_non_array_names_its_own_key() -> None:
    top = TableReader(parse_toml("users = 3", "doc.toml"), "")
    with pytest.raises(ConfigError, match=r"^users: must be an array of tables \(\[\[users\]\]"):
        top.array_of_tables("users")


def test_bad_toml_names_the_source() -> None:
    with pytest.raises(ConfigError, match=r"^doc\.toml: not valid TOML"):
        parse_toml("x = [", "doc.toml")
