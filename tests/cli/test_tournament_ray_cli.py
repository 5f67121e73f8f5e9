"""``tournament run|resume --ray``: every way it is refused says what is wrong, in one line.

No cluster is needed to be refused (the cluster tests are in ``tests/ray``): Ray missing, an
address with nothing behind it, and options that cannot go with a cluster.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from .helpers import TINY, Runner


def _tiny(tmp_path: Path) -> Path:
    config = tmp_path / "tiny.toml"
    config.write_text(TINY)
    return config


@pytest.mark.slow
def test_without_ray_installed_the_command_says_how_to_install_it(
    cli_process: Runner, tmp_path: Path,
) -> None:
    hiding = tmp_path / "no-ray"
    (hiding / "ray").mkdir(parents=True)
    (hiding / "ray" / "__init__.py").write_text("raise ImportError(\"No module named 'ray'\")\n")
    db = tmp_path / "r.sqlite"
    result = cli_process("tournament", "run", str(_tiny(tmp_path)), "--db", str(db),
                         "--ray", "127.0.0.1:6379", env={"PYTHONPATH": str(hiding)})
    result.assert_usage_error("--ray needs Ray, which is not installed",
                              "pip install 'craits-arena[ray]'")
    assert not db.exists()  # refused before anything was created


@pytest.mark.slow
def test_an_address_where_no_head_listens_is_refused_before_anything_is_created(
    cli: Runner, tmp_path: Path,
) -> None:
    with socket.socket() as closed:  # a port nothing listens on once this is closed
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    db = tmp_path / "r.sqlite"
    result = cli("tournament", "run", str(_tiny(tmp_path)), "--db", str(db), "--quiet",
                 "--ray", f"127.0.0.1:{port}")
    result.assert_usage_error(f"cannot reach the Ray cluster's head at 127.0.0.1:{port}",
                              "ray start --head")
    assert not db.exists()


def test_an_address_without_a_port_is_refused(cli: Runner, tmp_path: Path) -> None:
    result = cli("tournament", "run", str(_tiny(tmp_path)), "--db", str(tmp_path / "r.sqlite"),
                 "--quiet", "--ray", "head.example")
    result.assert_usage_error("--ray head.example", "HOST:PORT")


def test_options_for_remote_bots_do_not_go_with_a_cluster(cli: Runner, tmp_path: Path) -> None:
    config = str(_tiny(tmp_path))
    db = str(tmp_path / "r.sqlite")
    cli("tournament", "run", config, "--db", db, "--ray", "127.0.0.1:1", "--port", "4000"
        ).assert_usage_error("--host, --port and TLS are for remote bots", "leave out --ray")
    cli("tournament", "run", config, "--db", db, "--ray-shared").assert_usage_error(
        "--ray-shared goes with --ray ADDRESS")
