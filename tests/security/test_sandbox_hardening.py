"""The sandbox's hardening (issue 30, parts 1 and 4), each with a real sandboxed process and a
control where that defence is off:

- the kernel's machine-wide counters in /proc (``/proc/sys/fs/file-nr`` carried a hand between
  two of a bot's processes) are masked;
- new user namespaces are refused (as root by a seccomp filter, else ``bwrap --disable-userns``);
- the bot's token is on no command line and in no other process's environment (bwrap's options
  are read from a descriptor; pid 1 in the sandbox is a copy of bwrap, whose command line every
  process may read).
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
from pathlib import Path
from unittest import mock

import pytest
import trio

from craits.hosting import sandbox
from craits.hosting.launcher import launch
from craits.referee.hub import BotHub

from .probe_bot import COUNTERS

pytestmark = pytest.mark.slow

PROBE = Path(__file__).with_name("probe_bot.py")


def probe(tmp_path: Path, hardened: bool = True, token_on_command_line: bool = False
          ) -> dict[str, str]:
    """Run the probe in a sandbox; its findings by name."""
    home = tmp_path / "bot"
    home.mkdir()
    home.chmod(0o755)
    (home / "probe.py").write_text(PROBE.read_text())
    socket = tmp_path / "referee.sock"
    socket.touch()
    plan = dataclasses.replace(sandbox.plan_for(home, socket, sandbox.SandboxLimits()),
                               hardened=hardened)
    hub = BotHub()

    def old_prepare(plan: sandbox.SandboxPlan, argv: list[str], env: dict[str, str]
                    ) -> sandbox.Prepared:
        """Before: every option of bwrap, ``--setenv CRAITS_TOKEN ...`` too, on its command
        line."""
        return sandbox.Prepared(sandbox.bwrap_command(plan, argv, env), ())

    async def main() -> None:
        bot = await launch(hub, "unused", "python3 probe.py", "probe", tmp_path, plan=plan)
        with trio.fail_after(60):
            await bot.watch(hub)

    with mock.patch.object(sandbox, "prepare", old_prepare) if token_on_command_line \
            else contextlib.nullcontext():
        trio.run(main)
    log = (tmp_path / "probe.stderr.log").read_text()
    return dict(re.findall(r"^PROBE (\S+): (.*)$", log, re.MULTILINE))


def test_the_machines_counters_are_masked(tmp_path: Path) -> None:
    found = probe(tmp_path)
    for name in COUNTERS:
        assert found[name].startswith("masked"), (name, found[name])


def test_control_without_the_masks_the_counters_are_readable(tmp_path: Path) -> None:
    found = probe(tmp_path, hardened=False)
    assert found["sys/fs/file-nr"] == "visible" and found["loadavg"] == "visible"


def test_no_user_namespace_can_be_made(tmp_path: Path) -> None:
    assert probe(tmp_path)["userns"].startswith("refused")


def test_control_without_the_block_a_user_namespace_is_made(tmp_path: Path) -> None:
    assert probe(tmp_path, hardened=False)["userns"] == "created"


def test_the_token_is_on_no_command_line(tmp_path: Path) -> None:
    assert probe(tmp_path)["token"] == "hidden"


def test_control_with_bwraps_options_on_its_command_line_pid_1_shows_the_token(
    tmp_path: Path,
) -> None:
    assert "/proc/1/cmdline" in probe(tmp_path, token_on_command_line=True)["token"]
