"""The pieces of fair play one at a time: deal keys, the schedule's seeds and ids, the trust
settings, and the sandbox's argument list."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from craits.dealkey import KEY_BYTES, DealKey, run_key
from craits.hosting import sandbox
from craits.tournament.plan.config import ConfigError, config_from_dict, fairness_notes
from craits.tournament.plan.schedule import build_schedule


def cup(**extra: object) -> dict[str, object]:
    bots = [{"name": "a", "command": "python3 a.py"}, {"name": "b"}, {"name": "c"}]
    return {"bots": extra.pop("bots", bots), "table_size": 3, "deal_sets": 3, **extra}


def test_a_fresh_key_is_256_secret_bits_and_never_shown() -> None:
    key = DealKey.fresh()
    assert len(key.secret) == KEY_BYTES == 32 and not key.testing
    assert key.hex not in repr(key) and DealKey.from_hex(key.hex) == key
    assert DealKey.fresh() != key


def test_a_seeded_key_is_reproducible_and_marked_for_testing() -> None:
    assert run_key(7) == DealKey.from_seed(7) and run_key(7).testing
    assert run_key(None).testing is False and run_key(None) != run_key(None)


def test_game_ids_are_opaque_and_unrelated_to_seeds() -> None:
    key = DealKey.from_seed(1)
    ids = {key.game_id("tournament-game", i) for i in range(1000)}
    assert len(ids) == 1000
    assert all(len(i) == 18 and i.startswith("g-") for i in ids)
    assert key.game_id("x", 1) != DealKey.from_seed(2).game_id("x", 1)
    # labels are kept apart: no two label lists share an id or a seed
    assert key.seed("a,b", 1) != key.seed("a", "b,1")


def test_without_a_seed_every_tournament_gets_its_own_secret_deals() -> None:
    config = config_from_dict(cup())
    assert config.seed is None and "seed" not in config.to_dict()
    one, two = build_schedule(config, "t"), build_schedule(config, "t")
    assert {j.seed for j in one}.isdisjoint({j.seed for j in two})
    assert {j.game_id for j in one}.isdisjoint({j.game_id for j in two})
    for job in one:
        assert str(job.seed) not in job.game_id and str(job.game_index) != job.game_id


def test_duplicate_seatings_share_a_deal_and_independent_ones_do_not() -> None:
    duplicate = build_schedule(config_from_dict(cup(seed=3)), "t")
    independent = build_schedule(config_from_dict(cup(seed=3, deals="independent")), "t")
    per_set: dict[tuple[int, int], set[int]] = {j.deal_set_key: set() for j in duplicate}
    for job in duplicate:
        per_set[job.deal_set_key].add(job.seed)
    assert all(len(seeds) == 1 for seeds in per_set.values())
    assert len({j.seed for j in independent}) == len(independent)


def test_an_adversarial_remote_bot_gets_independent_deals_and_a_note() -> None:
    bots = [{"name": "r", "remote": True}, {"name": "b"}, {"name": "c"}, {"name": "d"}]
    config = config_from_dict(cup(bots=bots, seed=2))
    jobs = build_schedule(config, "t")
    with_remote = [j for j in jobs if "r" in j.meeting]
    without = [j for j in jobs if "r" not in j.meeting]
    assert len({j.seed for j in with_remote}) == len(with_remote)
    assert len({j.seed for j in without}) == len(without) // 3
    notes = fairness_notes(config)
    assert any("r play remotely" in n and "independent deals" in n for n in notes)
    assert any("seed = 2" in n for n in notes)
    trusted = config_from_dict(cup(bots=bots, trust="trusted"))
    assert trusted.independent(("r", "b", "c")) is False


def test_only_command_bots_under_adversarial_trust_are_isolated() -> None:
    config = config_from_dict(cup())
    assert config.trust == "adversarial" and config.isolated("a")
    assert not config.isolated("b")
    assert not config_from_dict(cup(trust="trusted")).isolated("a")


def test_bot_directory_and_limits_round_trip_and_are_validated() -> None:
    bots: list[dict[str, Any]] = [
        {"name": "a", "command": "python3 a.py", "dir": "a",
         "limits": {"memory_mb": 512, "processes": 8}}, {"name": "b"}, {"name": "c"},
    ]
    config = config_from_dict(cup(bots=bots))
    spec = config.bot("a")
    assert spec.directory == "a" and spec.limits.memory_mb == 512 and spec.limits.tmp_mb == 64
    assert config_from_dict(config.to_dict()) == config
    with pytest.raises(ConfigError, match=r"bots\[0\]\.limits\.memory_mb"):
        config_from_dict(cup(bots=[{**bots[0], "limits": {"memory_mb": 1}}, *bots[1:]]))
    with pytest.raises(ConfigError, match=r"bots\[0\]\.limits\.disk"):
        config_from_dict(cup(bots=[{**bots[0], "limits": {"disk": 1}}, *bots[1:]]))
    with pytest.raises(ConfigError, match="only a command bot"):
        config_from_dict(cup(bots=[{"name": "a", "dir": "x"}, *bots[1:]]))
    with pytest.raises(ConfigError, match="trust"):
        config_from_dict(cup(trust="maybe"))


def plan(tmp_path: Path, uid: int | None, hidden: tuple[Path, ...] = ()) -> sandbox.SandboxPlan:
    return sandbox.SandboxPlan(tmp_path / "bot", tmp_path / "referee.sock",
                               sandbox.SandboxLimits(memory_mb=300, processes=9), (), hidden, uid)


def test_the_sandbox_is_an_argument_list_with_every_namespace_and_limit(tmp_path: Path) -> None:
    (tmp_path / "bot").mkdir()
    env = {"CRAITS_TOKEN": "t --ro-bind / /x"}  # a value is one argument, never parsed
    argv = sandbox.bwrap_command(plan(tmp_path, 1234), ["python3", "bot.py"], env)
    assert argv[0] == "bwrap" and argv[-2:] == ["python3", "bot.py"]
    assert argv[argv.index("--setenv"):][:3] == ["--setenv", "CRAITS_TOKEN", "t --ro-bind / /x"]
    for flag in ("--unshare-pid", "--unshare-net", "--unshare-ipc", "--die-with-parent",
                 "--clearenv", "--new-session"):
        assert flag in argv
    assert "--unshare-user" not in argv and "--unshare-all" not in argv  # a real uid instead
    inner = argv[argv.index("--", argv.index("--chdir")) + 1:]
    assert inner[:2] == ["setpriv", "--reuid=1234"]
    assert f"--as={300 << 20}" in inner and "--nproc=9" in inner
    bot = str(tmp_path / "bot")
    assert argv[argv.index(bot) - 1:argv.index(bot) + 2] == ["--ro-bind", bot, bot]
    assert argv.index("/tmp") < argv.index(bot)  # the private /tmp first, the binds on top


def test_without_root_bwrap_takes_a_user_namespace_and_no_process_limit(tmp_path: Path) -> None:
    argv = sandbox.bwrap_command(plan(tmp_path, None), ["bot"], {})
    assert "--unshare-all" in argv and "setpriv" not in argv
    assert not any(a.startswith("--nproc") for a in argv)


def test_the_store_is_masked_where_a_mounted_tree_would_show_it(tmp_path: Path) -> None:
    (tmp_path / "bot" / "results").mkdir(parents=True)
    db = tmp_path / "bot" / "results" / "t.sqlite"
    db.write_text("")
    outside = tmp_path / "elsewhere.sqlite"
    outside.write_text("")
    argv = sandbox.bwrap_command(plan(tmp_path, None, (db, db.parent, outside)), ["bot"], {})
    assert ["--ro-bind", "/dev/null", str(db)] == argv[argv.index(str(db)) - 2:][:3]
    assert ["--tmpfs", str(db.parent)] == argv[argv.index(str(db.parent)) - 1:][:2]
    assert str(outside) not in argv  # not mounted at all: nothing to mask


def test_the_allow_listed_environment_keeps_no_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "hunter2")
    monkeypatch.setenv("LANG", "C.UTF-8")
    env = sandbox.bot_env("/usr/bin", {"CRAITS_TOKEN": "x"})
    assert "AWS_SECRET_ACCESS_KEY" not in env and env["LANG"] == "C.UTF-8"
    assert env["HOME"] == "/tmp" and env["CRAITS_TOKEN"] == "x"


def test_a_missing_bubblewrap_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    why = sandbox.missing()
    assert why is not None and "bubblewrap" in why and 'trust = "trusted"' in why
