"""The compliance suite every bundled bot runs, in every language (dm_env_rpc's pattern: one
abstract test class, subclassed once per implementation).

What a contestant copies must hold up to what a contest does to it, and that is the same for a
Python SDK bot, a pipe bot and a starter in C++, JavaScript, Go, Java or Rust: play a full game
against Python bots without a fault; dial every form of ``CRAITS_SERVER`` (docs/protocol.md:
``host:port``, ``tls://host:port`` with ``CRAITS_TLS_CA``, ``host:port`` with only
``CRAITS_TLS_CA``, and ``unix:/PATH``, which stays plain whatever ``CRAITS_TLS_CA`` says); end
with the statuses the protocol gives (2 and the referee's message for a refused token, 0 when
the referee shuts down, 2 and what is missing without the environment); and pass ``craits
check``, plainly and in the sandbox a contest runs it in. Written once here, a new starter gets
all of it by saying how it is built and started; a bot that differs fails here, not in a
contest.

A subclass gives ``build`` (build the bot if it must be built, and return the argv that starts
it, absolute paths so that any working directory will do); a toolchain that only some machines
have is ``tests/optional.py``'s ``require``d at the subclass module's top, so that the module is
skipped once with the install command outside CI and fails in CI.
"""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import pytest
import trio

from craits.engine import preset
from craits.hosting.launcher import BotProcess, launch, stop_all
from craits.hosting.running import why_not_connected
from craits.referee import bridge
from craits.referee.game import GameSpec, PlayedGame, play_game
from craits.referee.listener import TlsFiles
from craits.referee.server import Referee, open_referee
from craits_sdk.client import is_this_machine
from tests.security.certs import Certs, make_certs

from .helpers import ROOT, match, spec

PROCESS_TIMEOUT_S = 60
CONNECT_TIMEOUT_S = 30
FORMS = ("tls", "ca-only", "unix")
"""The forms of ``CRAITS_SERVER`` a game is dialled with besides plain ``host:port`` (which
the full game uses): see ``settings_for``."""


def settings_for(form: str, referee: Referee, ca: Path) -> dict[str, str]:
    """What a bot is given to dial ``referee`` (serving TLS on its port, plain on its socket)
    in ``form``: ``tls://host:port`` and the CA; ``host:port`` and the CA alone, which means
    TLS too; the Unix socket with the CA still set, which the bot must ignore there."""
    assert referee.socket is not None
    server = {"tls": f"tls://{referee.address}", "ca-only": referee.address,
              "unix": f"unix:{referee.socket}"}[form]
    return {"CRAITS_SERVER": server, "CRAITS_TLS_CA": str(ca)}


async def dialled_game(command: str, form: str, certs: Certs, game: GameSpec,
                       logs: Path) -> PlayedGame:
    """One game between the bot, dialling in ``form``, and a bundled greedy bot, at a referee
    serving TLS (both launched as ``craits match`` launches bots, the bot's settings put before
    its command as a shell does)."""
    tls = TlsFiles(certs.cert, certs.key, certs.ca)
    async with open_referee(tls=tls) as referee, trio.open_nursery() as nursery:
        settings = settings_for(form, referee, certs.ca)
        words = " ".join(f"{name}={shlex.quote(value)}" for name, value in settings.items())
        bots: list[BotProcess] = []
        try:
            for bot_spec, name in ((f"{words} {command}", "bot"), ("greedy", "greedy")):
                bots.append(await launch(referee.hub, referee.local_address, bot_spec, name,
                                         logs))
                nursery.start_soon(bots[-1].watch, referee.hub)
            for bot in bots:
                connected = await referee.hub.wait_connected(bot.entry, CONNECT_TIMEOUT_S)
                assert connected, why_not_connected(bot, CONNECT_TIMEOUT_S)
            return await play_game(game, [referee.hub.seat_for(b.entry) for b in bots])
        finally:
            with trio.CancelScope(shield=True):
                await stop_all(referee.hub, bots)
            nursery.cancel_scope.cancel()


def build_in(directory: Path, command: list[str], timeout_s: float) -> None:
    """Run a starter's build ``command`` in its ``directory`` (make or cargo, which rebuild only
    what changed, into the directory's build/), failing the test with the build's output if it
    fails. One build of a directory at a time across processes: the suite's workers
    (pytest-xdist, docs/testing.md) each build a class's bot for its share of the class's
    tests, and two makes writing one build/ at once would race; the second waits on an
    exclusive ``flock`` of the directory itself (no lock file to leave behind) and then finds
    everything up to date."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # released when fd is closed
        built = subprocess.run(command, cwd=directory, capture_output=True, text=True,
                               timeout=timeout_s, check=False)
    finally:
        os.close(fd)
    assert built.returncode == 0, built.stdout + built.stderr


def run_bot(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The bot as a process with ``env`` over this one's environment (less any CRAITS_ variable
    of the caller's), to its exit."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CRAITS_")}
    return subprocess.run(argv, env={**clean, **env}, capture_output=True, text=True,
                          timeout=PROCESS_TIMEOUT_S, check=False)


def craits_check(command: str, *options: str) -> dict[str, Any]:
    """``craits check COMMAND --json`` as a contestant runs it, from the repository's root (a
    sandboxed bot's directory is the current one, so every bot's files are inside it)."""
    done = subprocess.run([sys.executable, "-m", "craits", "check", command, "--json", *options],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    report: dict[str, Any] = json.loads(done.stdout)
    assert done.returncode == 0 and report["ok"], json.dumps(report, indent=1) + done.stderr
    return report


def beyond_this_machine() -> str:
    """An address for documentation (RFC 5737) that is not one of this machine's own (a test
    network may give the machine one of them)."""
    return next(ip for ip in ("203.0.113.1", "198.51.100.1", "192.0.2.1")
                if not is_this_machine(ip))


def log_of(logs: Path, name: str) -> str:
    """What a launched bot wrote on stderr, for a failed assertion's message."""
    path = logs / f"{name}.stderr.log"
    return path.read_text() if path.exists() else f"(no {path})"


class BotCompliance:
    """What every bundled bot must do. Subclass it as ``Test<Name>Bot`` and give ``build``.

    Every test starts real processes (and the first one builds the bot): none belongs in the
    fast lane."""

    pytestmark: ClassVar[list[pytest.MarkDecorator]] = [pytest.mark.slow]

    name: ClassVar[str]
    """The bot's language or kind, for logs."""

    def build(self) -> list[str]:
        """Build the bot if it needs building (quickly when it is up to date: ``build_in``) and
        return the argv that starts it; the build's failure is a test failure showing its
        output."""
        raise NotImplementedError

    @pytest.fixture(scope="class")
    @classmethod
    def argv(cls) -> list[str]:
        """The started bot's argv, built once per subclass."""
        return cls().build()

    @pytest.fixture(scope="class")
    @classmethod
    def certs(cls, tmp_path_factory: pytest.TempPathFactory) -> Certs:
        """A CA and the referee's certificate, made for this class's games."""
        return make_certs(tmp_path_factory.mktemp(f"tls-{cls.name}"))

    def test_plays_a_full_game_against_python_bots(self, argv: list[str],
                                                   tmp_path: Path) -> None:
        game = spec(f"{self.name}-full", preset("standard"), seed=5)
        result = match([shlex.join(argv), "greedy", "random"], game, tmp_path)
        assert result.outcome.hands_played == 15
        assert result.faults == [] and result.strikes == (0, 0, 0)
        assert not any(result.forfeited) and not any(m.defaulted for m in result.moves)
        assert sum(1 for m in result.moves if m.seat == 0) > 50

    @pytest.mark.parametrize("form", FORMS)
    def test_plays_a_game_dialling_each_form_of_craits_server(
        self, argv: list[str], certs: Certs, form: str, tmp_path: Path,
    ) -> None:
        game = spec(f"{self.name}-{form}", seed=3)

        async def main() -> PlayedGame:
            return await dialled_game(shlex.join(argv), form, certs, game, tmp_path)

        result = bridge.run(main)
        assert result.faults == [] and not any(result.forfeited), log_of(tmp_path, "bot")
        assert not any(m.defaulted for m in result.moves)
        assert any(m.seat == 0 for m in result.moves)

    def test_a_bad_token_is_printed_and_exits_2(self, argv: list[str]) -> None:
        async def main() -> subprocess.CompletedProcess[str]:
            async with open_referee() as referee:
                env = {"CRAITS_SERVER": referee.address, "CRAITS_TOKEN": "not-issued"}
                return await trio.to_thread.run_sync(run_bot, argv, env)

        proc = bridge.run(main)
        assert proc.returncode == 2, proc.stderr
        assert "unknown token" in proc.stderr  # the referee's own words

    def test_the_referee_shutting_down_is_a_normal_end(self, argv: list[str]) -> None:
        async def main() -> int:
            async with open_referee() as referee:
                entry = referee.hub.issue_token(self.name)
                env = {**os.environ, "CRAITS_SERVER": referee.address,
                       "CRAITS_TOKEN": entry.token}
                process = await trio.lowlevel.open_process(argv, env=env,
                                                           stderr=subprocess.DEVNULL)
                assert await referee.hub.wait_connected(entry, CONNECT_TIMEOUT_S)
            with trio.fail_after(PROCESS_TIMEOUT_S):
                return await process.wait()

        assert bridge.run(main) == 0

    def test_missing_environment_exits_2_naming_it(self, argv: list[str]) -> None:
        proc = run_bot(argv, {})
        assert proc.returncode == 2 and "CRAITS_SERVER" in proc.stderr, proc.stderr

    def test_a_plain_dial_beyond_this_machine_is_refused(self, argv: list[str]) -> None:
        beyond = f"{beyond_this_machine()}:50051"
        proc = run_bot(argv, {"CRAITS_SERVER": beyond, "CRAITS_TOKEN": "secret"})
        assert proc.returncode == 2 and "CRAITS_ALLOW_PLAINTEXT" in proc.stderr, proc.stderr

    def test_passes_craits_check(self, argv: list[str]) -> None:
        report = craits_check(shlex.join(argv))
        assert report["failed"] == 0 and report["passed"] == len(report["checks"])

    def test_passes_craits_check_in_the_sandbox(self, argv: list[str]) -> None:
        report = craits_check(shlex.join(argv), "--sandbox")
        assert report["failed"] == 0
