"""Names the launcher gives bot SPECs (what the command runs, never one of its options), and
the command it starts for a SPEC."""

from __future__ import annotations

import pytest

from craits.hosting.launcher import command_for, display_name
from craits_bots.registry import BUNDLED, launch_command


@pytest.mark.parametrize(("spec", "name"), [
    ("greedy", "greedy"),
    ('python -c "print(1)"', "python"),
    ("python3 -u my_bot.py --fast", "my_bot"),
    ("python -m craits_bots.greedy", "greedy"),
    ("node bots/js/bot.js", "bot"),
    ("craits pipe -- bash bots/pipe/first_legal.sh", "first_legal"),
    ("env FOO=1 python3 ./bots/lucky.py", "lucky"),
    ("FOO=1 ./mybot --level 3", "mybot"),
    ("sh -c 'exit 3'", "sh"),
    ("/usr/bin/python3.11 'my bots/z.py'", "z"),
    ('x "unbalanced', "x"),
])
def test_a_spec_is_named_after_what_it_runs(spec: str, name: str) -> None:
    assert display_name(spec) == name


def test_a_bundled_bot_starts_with_the_registrys_command() -> None:
    assert command_for("greedy") == launch_command("greedy")
    assert command_for("greedy")[-1] == BUNDLED["greedy"]


def test_any_other_spec_runs_in_a_shell() -> None:
    assert command_for("python3 my_bot.py") == ["/bin/sh", "-c", "python3 my_bot.py"]
