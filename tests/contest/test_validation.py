"""Validation with real uploaded bots, each in its real sandbox and store: a working version
becomes ``rated`` (played under the configuration the service loaded, not the file as edited
since); one that crashes on its first move, and one that never connects, become ``rejected``
with a reason and an excerpt of their own log; a validation cut short by a dead service is
replayed by the next one (a lease left in the store, and the real ``craits contest serve``
killed with SIGKILL). The validation children (conformance, self-play): one that dies is started
again, a bounded number of times; one past its time, or whose service stops, is ended with its
sandboxes, leaving no process behind; one past its time keeps what its bots wrote, to the end,
in their logs, and says there that it was stopped at its limit."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest
import trio
import trio.testing

from craits.contest import validation
from craits.contest.config import load_contest_config
from craits.contest.store import ContestStore, Version
from craits.contest.validation import (
    CHECK_TIMEOUT_S,
    CHILD_ATTEMPTS,
    SELF_PLAY_TIMEOUT_S,
    ContestRun,
    Verdict,
    conformance,
    self_play,
    validate,
    validation_loop,
)
from craits.contest.versions import VersionState
from craits.hosting import spawn
from craits.referee.bridge import run
from tests.procfs import NICE, SESSION, STATE, stat_of
from tests.waiting import until

from .processes import read_store, serve
from .server import make_contest
from .uploaded import CRASHES_ON_FIRST_MOVE, NEVER_CONNECTS, add_version, wrapped

pytestmark = pytest.mark.slow

SLOW = ("import time\nfrom craits_bots.random import RandomBot\nfrom craits_sdk import run\n\n\n"
        "class Slow(RandomBot):\n    def decide(self, view):\n        time.sleep(0.5)\n"
        "        return super().decide(view)\n\n\nrun(Slow())\n")
"""Within its clock at every move, and so slow that its games last minutes."""

HANGS_WHEN_TOLD = ("import os, signal, sys, time\n\nwhile not os.path.exists('go'):\n"
                   "    time.sleep(0.01)\n"
                   "print('lost in thought before my first move', file=sys.stderr, flush=True)\n"
                   "os.kill(os.getpid(), signal.SIGSTOP)\n")
"""Prints a line once told to (a file ``go`` in its directory, which its sandbox shows), then
hangs for good: it stops itself, so a test sees in ``/proc`` that the line was written."""


def _contest(tmp_path: Path, settings: str = "") -> ContestRun:
    directory = tmp_path / "cup"
    make_contest(directory, f"tables.max_seats = 3\n{settings}", names=("alice",))
    directory.chmod(0o755)
    store = ContestStore.open(directory / "contest.db")
    return ContestRun(directory, load_contest_config(directory), store)


def running_in(directory: Path) -> list[str]:
    """Every process whose current directory is in ``directory``, as ``PID command``: under
    ``bots/``, a validation child (started in the version's directory) and every process of
    the sandboxes it started (bwrap and the bot, in the bot's directory)."""
    inside = str(directory.resolve())
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cwd = os.readlink(entry / "cwd")
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:  # ended meanwhile, or a zombie
                continue
            if cwd == inside or cwd.startswith(inside + "/"):
                found.append(f"{entry.name} {command[:60].decode(errors='replace')}")
    return found


def children(directory: Path, module: str) -> list[int]:
    """The pids of the running ``python -m MODULE`` children in ``directory``."""
    return [int(p.split()[0]) for p in running_in(directory) if f"-m {module}" in p]


def none_left(directory: Path) -> None:
    """No process is left in ``directory`` (the sandboxes end with the child they belong to,
    a moment after it)."""
    until(lambda: not running_in(directory), 15, f"left running: {running_in(directory)}",
          every=0.1)


def test_a_working_version_passes_and_broken_ones_say_why(tmp_path: Path) -> None:
    contest = _contest(tmp_path)
    good = add_version(contest.directory, contest.store, 1, wrapped("greedy"))
    crash = add_version(contest.directory, contest.store, 1, CRASHES_ON_FIRST_MOVE)
    absent = add_version(contest.directory, contest.store, 1, NEVER_CONNECTS)
    # The organiser edits the file; the service plays the contest it loaded (tables of 2 to 3).
    toml = contest.directory / "contest.toml"
    toml.write_text(toml.read_text().replace("max_seats = 3", "max_seats = 5"))

    assert run(validate, contest, good).passed
    played = contest.directory / "logs" / "validation" / f"v{good.id}"
    assert [len(list((played / f"self-{size}").glob("*.stderr.log"))) for size in (2, 3)] \
        == [2, 3]
    assert not (played / "self-5").exists()

    crashed = run(validate, contest, crash)
    assert not crashed.passed
    assert crashed.reason.startswith("conformance: ")
    assert "my first move is broken" in crashed.log
    assert str(contest.directory.resolve()) not in crashed.reason + crashed.log

    gone = run(validate, contest, absent)
    assert not gone.passed
    assert "connect" in gone.reason and "exit" in gone.reason, gone.reason
    assert "no referee for me" in gone.log


def test_the_loop_judges_the_queue_and_a_dead_validators_lease_is_replayed(
        tmp_path: Path) -> None:
    contest = _contest(tmp_path)
    good = add_version(contest.directory, contest.store, 1, wrapped("random"))
    bad = add_version(contest.directory, contest.store, 1, NEVER_CONNECTS)
    # A validator that died holding a lease: the next service releases it at start.
    assert contest.store.claim_validation(0.0, 10_000.0) is not None
    assert contest.store.claim_validation(0.0, 10_000.0) is not None
    assert contest.store.claim_validation(0.0, 10_000.0) is None
    assert contest.store.release_validation_leases() == 2

    async def until_done() -> None:
        import trio

        async with trio.open_nursery() as nursery:
            nursery.start_soon(validation_loop, contest)
            while contest.store.validation_queue():
                await trio.sleep(0.2)
            nursery.cancel_scope.cancel()

    run(until_done)
    assert contest.store.version(good.id).state == VersionState.RATED  # type: ignore[union-attr]
    rejected = contest.store.version(bad.id)
    assert rejected is not None and rejected.state == VersionState.REJECTED
    assert rejected.reason and "no referee for me" in rejected.log


@pytest.mark.parametrize("kills", [1, CHILD_ATTEMPTS])
def test_a_child_that_dies_is_started_again_a_bounded_number_of_times(
        tmp_path: Path, kills: int, caplog: pytest.LogCaptureFixture) -> None:
    """The self-play child SIGKILLed ``kills`` times, each as soon as it is seen: once, the
    next attempt judges the version; at every attempt, the version is rejected, saying that the
    run could not be judged (not that the bot failed)."""
    contest = _contest(tmp_path)
    version = add_version(contest.directory, contest.store, 1, wrapped("greedy"))
    bots = contest.directory / "bots"
    killed: list[int] = []

    async def killing() -> Verdict:
        async with trio.open_nursery() as nursery:
            async def killer() -> None:
                while len(killed) < kills:
                    for pid in children(bots, "craits.contest.selfplay"):
                        if pid not in killed:
                            os.kill(pid, signal.SIGKILL)
                            killed.append(pid)
                    await trio.sleep(0.02)

            nursery.start_soon(killer)
            verdict = await self_play(contest, version)
            nursery.cancel_scope.cancel()
        return verdict

    verdict = run(killing)
    assert len(killed) == kills
    warned = [r.getMessage() for r in caplog.records if "no report" in r.getMessage()]
    assert len(warned) == kills and all("exit status -9" in w for w in warned), warned
    if kills < CHILD_ATTEMPTS:
        assert verdict.passed, verdict
    else:
        assert not verdict.passed
        assert verdict.reason == (f"the self-play run could not be judged (exit status -9, "
                                  f"{CHILD_ATTEMPTS} attempts); the organiser can see why in "
                                  "the service's logs")
    none_left(bots)


@pytest.mark.parametrize("end", ["its time is up", "the service stops"])
def test_a_child_is_killed_with_its_sandboxes(tmp_path: Path, end: str) -> None:
    """A self-play child whose games would go on for minutes (a slow bot, within its clock),
    once its bots have connected: on virtual time, ``SELF_PLAY_TIMEOUT_S`` passes (the version
    is rejected as too slow, with its bots' log), or the validator is cancelled, as a stopping
    service's is. Either way nothing of it is left running: without the kill, the child and its
    sandboxes would play on."""
    contest = _contest(tmp_path)
    version = add_version(contest.directory, contest.store, 1, SLOW)
    bots = contest.directory / "bots"
    verdicts: list[Verdict] = []

    def bots_playing() -> bool:
        logs = contest.directory / "logs" / "validation" / f"v{version.id}" / "self-2"
        return sum("connected as" in p.read_text() for p in logs.glob("*.stderr.log")) == 2

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            async def validating() -> None:
                verdicts.append(await self_play(contest, version))

            nursery.start_soon(validating)
            await trio.to_thread.run_sync(until, bots_playing, 60, "the bots never played",
                                          0.05)
            if end == "its time is up":
                clock.jump(SELF_PLAY_TIMEOUT_S)
            else:
                nursery.cancel_scope.cancel()

    clock = trio.testing.MockClock()
    trio.run(main, clock=clock)
    if end == "its time is up":
        assert verdicts == [Verdict(False, f"the self-play games took over "
                                    f"{SELF_PLAY_TIMEOUT_S:g} s", verdicts[0].log)]
        assert "connected as 'v1-0'" in verdicts[0].log
        assert verdicts[0].log.endswith(f"[craits: the self-play run reached its time limit "
                                        f"({SELF_PLAY_TIMEOUT_S:g} s) and was stopped]")
    else:
        assert verdicts == []
    none_left(bots)


def signalled(pid: int) -> bool:
    """Whether ``pid``, held by SIGSTOP, has been sent SIGINT (pending) or killed (ended)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    pending = int(status.split("ShdPnd:")[1].split()[0], 16)
    return bool(pending & (1 << (signal.SIGINT - 1))) or stat_of(pid)[STATE] == "Z"


def bot_in(bots: Path) -> int | None:
    """The bot's own process (``python bot.py``, not the shell that started it), if one runs
    in ``bots``."""
    for process in running_in(bots):
        pid, command = process.split(" ", 1)
        if command.split()[-1:] == ["bot.py"] and "python" in command.split()[0]:
            return int(pid)
    return None


async def hold_past_its_limit(bots: Path, version: Version, clock: trio.testing.MockClock,
                              kill: Callable[[int, int], None] = os.kill) -> int:
    """The conformance child of ``version`` (started in ``bots``) held by SIGSTOP from before
    its bot (``HANGS_WHEN_TOLD``) prints its line, its time limit passed on ``clock``, and the
    stop at the limit sent (``signalled``); its pid. ``kill`` sends the SIGSTOP."""
    bot = await trio.to_thread.run_sync(until, partial(bot_in, bots), 60,
                                        "the bot never started", 0.02)
    (child,) = children(bots, "craits.contest.checkrun")
    kill(child, signal.SIGSTOP)
    (bots / version.content_hash / "go").touch()
    await trio.to_thread.run_sync(until, lambda: stat_of(bot)[STATE] == "T", 60,
                                  "the bot never printed its line", 0.02)
    clock.jump(CHECK_TIMEOUT_S)
    await trio.to_thread.run_sync(until, partial(signalled, child), 60,
                                  "the child was never stopped", 0.02)
    return child


@pytest.mark.parametrize("stop", ["stop_at_limit", "control-kill"])
def test_a_child_past_its_limit_leaves_its_bots_last_words_in_their_logs(
        tmp_path: Path, stop: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot prints a line, then hangs, while its conformance child is held (SIGSTOP) from
    before the line until past the child's time limit (virtual time): the line is still in the
    pipe the child copies its bot's output from, as it is when a child below the service's
    priority has not run since its bot wrote. Stopped at the limit (``stop_at_limit``), the
    child copies the line into the bot's log on its way out, and the log says the run was
    stopped at its limit. The control, with the child killed at once there as before
    (``stop_at_limit`` doing nothing and ``interrupt`` a SIGKILL), leaves the log empty."""
    contest = _contest(tmp_path)
    version = add_version(contest.directory, contest.store, 1, HANGS_WHEN_TOLD)
    if stop == "control-kill":
        async def do_nothing(*_: object) -> None:
            pass

        async def kill_at_once(process: spawn.ChildProcess, grace_s: float,
                               signalled: bool = False) -> None:
            os.kill(process.pid, signal.SIGKILL)
            await process.wait()

        monkeypatch.setattr(validation, "stop_at_limit", do_nothing)
        monkeypatch.setattr(validation, "interrupt", kill_at_once)
    bots = contest.directory / "bots"
    verdicts: list[Verdict] = []


    async def main() -> None:
        async with trio.open_nursery() as nursery:
            async def validating() -> None:
                verdicts.append(await conformance(contest, version))

            nursery.start_soon(validating)
            child = await hold_past_its_limit(bots, version, clock)
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGCONT)

    clock = trio.testing.MockClock()
    trio.run(main, clock=clock)
    (verdict,) = verdicts
    assert verdict.reason == f"the conformance checks took over {CHECK_TIMEOUT_S:g} s"
    if stop == "control-kill":
        assert verdict.log == ""
    else:
        lines = verdict.log.splitlines()
        assert lines[:2] == ["== bot.stderr.log ==", "lost in thought before my first move"]
        assert lines[-1] == (f"[craits: the conformance run reached its time limit "
                             f"({CHECK_TIMEOUT_S:g} s) and was stopped]")
    none_left(bots)


@pytest.mark.parametrize("shutdown", ["waits", "control-signals-again"])
def test_a_service_stopping_while_a_child_is_stopped_at_its_limit_does_not_interrupt_it_twice(
        tmp_path: Path, shutdown: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The child is being stopped at its limit (SIGINT sent, the child held by SIGSTOP so that
    its stop is still under way) when the service stops (the validation cancelled): the
    stopping service only waits for it, sending no second SIGINT (a second Ctrl-C cuts a
    command's clean-up short), and the child, let go, finishes its stop: its bot's last words
    are in the log and nothing is left running. The control, the shutdown's interrupt signalling
    whatever came before (the code before this test), sends the child two."""
    contest = _contest(tmp_path)
    version = add_version(contest.directory, contest.store, 1, HANGS_WHEN_TOLD)
    bots = contest.directory / "bots"
    sigints: list[int] = []
    kill = os.kill

    def spy(pid: int, number: int) -> None:
        if number == signal.SIGINT:
            sigints.append(pid)
        kill(pid, number)

    monkeypatch.setattr(os, "kill", spy)
    if shutdown == "control-signals-again":
        interrupt = validation.interrupt

        async def signals_again(process: spawn.ChildProcess, grace_s: float,
                                signalled: bool = False) -> None:
            await interrupt(process, grace_s)

        monkeypatch.setattr(validation, "interrupt", signals_again)

    async def main() -> None:
        scope = trio.CancelScope()
        async with trio.open_nursery() as nursery:
            async def validating() -> None:
                with scope:
                    await conformance(contest, version)

            nursery.start_soon(validating)
            child = await hold_past_its_limit(bots, version, clock, kill)
            scope.cancel()
            await trio.testing.wait_all_tasks_blocked()
            kill(child, signal.SIGCONT)
        assert sigints == [child] * (1 if shutdown == "waits" else 2)

    clock = trio.testing.MockClock()
    trio.run(main, clock=clock)
    logs = contest.directory / "logs" / "validation" / f"v{version.id}" / "check"
    assert "lost in thought before my first move" in (logs / "bot.stderr.log").read_text()
    none_left(bots)


@pytest.mark.parametrize("nice", [3, 0], ids=["worker_nice", "control-0"])
def test_the_children_run_below_the_validator_as_the_table_workers_do(
        tmp_path: Path, nice: int) -> None:
    """The conformance child and the self-play child, and the sandboxed bots they start, run
    ``[ladder] worker_nice`` below the validator's priority, in its session (where the kernel's
    autogroups weigh a niceness), as the table workers do; each is looked at once its bots have
    connected, then cancelled. The control, ``worker_nice = 0``: at the validator's own."""
    contest = _contest(tmp_path, f"ladder.worker_nice = {nice}")
    version = add_version(contest.directory, contest.store, 1, SLOW)
    bots = contest.directory / "bots"
    logs = contest.directory / "logs" / "validation" / f"v{version.id}"
    seen: dict[str, list[int]] = {}

    def connected(part: Path) -> bool:
        return any("connected as" in p.read_text() for p in part.glob("*.stderr.log"))

    async def main() -> None:
        for part, module, where in ((conformance, "checkrun", "check"),
                                    (self_play, "selfplay", "self-2")):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(part, contest, version)
                await trio.to_thread.run_sync(until, partial(connected, logs / where), 60,
                                              f"no bot of the {module} child connected", 0.05)
                (child,) = children(bots, f"craits.contest.{module}")
                assert int(stat_of(child)[SESSION]) == os.getsid(0)
                seen[module] = [int(stat_of(int(p.split()[0]))[NICE]) for p in running_in(bots)]
                nursery.cancel_scope.cancel()

    trio.run(main)
    below = min(19, os.getpriority(os.PRIO_PROCESS, 0) + nice)
    for module, niceness in seen.items():
        assert len(niceness) >= 3, (module, running_in(bots))  # the child, a bwrap, a bot ...
        assert set(niceness) == {below}, (module, niceness)
    none_left(bots)


def test_a_service_killed_mid_validation_leaves_nothing_running_and_the_next_replays_it(
        tmp_path: Path) -> None:
    """The real ``craits contest serve`` SIGKILLed while a version plays its self-play games:
    its children and their sandboxes die with it; the next ``serve`` validates the version
    again, from the start, and rates it; stopped (SIGTERM) in the middle of the next version's
    validation, it leaves no process behind either."""
    contest = _contest(tmp_path)
    first = add_version(contest.directory, contest.store, 1, wrapped("greedy"))
    second = add_version(contest.directory, contest.store, 1, wrapped("random"))
    contest.store.close()
    bots = contest.directory / "bots"

    def state(version_id: int) -> str:
        with read_store(contest.directory) as db:
            return str(db.execute("SELECT state FROM versions WHERE id = ?",
                                  (version_id,)).fetchone()[0])

    with serve(contest.directory, "--workers", "0") as server:
        until(lambda: children(bots, "craits.contest.selfplay"), 120,
              "the first version's self-play never started", every=0.02)
        server.kill()
    none_left(bots)
    assert state(first.id) == "validating"
    with serve(contest.directory, "--workers", "0") as server:
        until(lambda: state(first.id) == "rated", 120, "the first version was never rated")
        until(lambda: running_in(bots / second.content_hash), 60,
              "the second version's validation never started", every=0.02)
        server.process.terminate()
        assert server.process.wait(timeout=60) == 130  # stopped, as after a Ctrl-C
    none_left(bots)
    assert state(second.id) == "validating"
