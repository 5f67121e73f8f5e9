"""``--ray ADDRESS`` and ``--ray-shared``: playing a tournament's tables on a Ray cluster."""

from __future__ import annotations

import argparse
from typing import Any

from craits.referee.bridge import DEFAULT_HOST
from craits.tournament.run.ray_pool import RayCluster, RayError, check_reachable, ray_module

from .common import UsageError


def add_ray_options(parser: Any) -> None:
    """Add the two options (``--ray-shared`` only means something with ``--ray``)."""
    parser.add_argument(
        "--ray", metavar="ADDRESS",
        help="play the tables on the Ray cluster whose head is at ADDRESS (HOST:PORT, or auto): "
        "one worker per CPU of the cluster (or --workers N), each with its own referee and "
        "bots; this process keeps the database. Needs craits-arena[ray] here and on every node "
        "(docs/scaling.md)")
    parser.add_argument(
        "--ray-shared", action="store_true",
        help="with --ray: the tournament's directory (its bots) is at the same path on every "
        "node, e.g. a shared filesystem; by default Ray ships it to the nodes")


def ray_from_args(args: argparse.Namespace) -> RayCluster | None:
    """The cluster to play on, checked now (``UsageError`` saying what is wrong), or None."""
    address = getattr(args, "ray", None)
    if address is None:
        if getattr(args, "ray_shared", False):
            raise UsageError("--ray-shared goes with --ray ADDRESS")
        return None
    if args.host != DEFAULT_HOST or args.port or getattr(args, "tls", None) is not None:
        raise UsageError("--host, --port and TLS are for remote bots, which play in one "
                         "process, not on a Ray cluster: leave them out, or leave out --ray")
    return ray_cluster(address, shared=args.ray_shared)


def ray_cluster(address: str, shared: bool = False) -> RayCluster:
    """The cluster whose head is at ``address`` (``--ray``), checked now: Ray installed, the
    head reachable (``UsageError`` saying what is wrong)."""
    if not address.strip():
        raise UsageError("--ray needs the address of the cluster's head, e.g. 10.0.0.5:6379")
    try:
        ray_module()
        check_reachable(address.strip())
    except RayError as exc:
        raise UsageError(str(exc)) from None
    return RayCluster(address.strip(), shared=shared)


def ray_words(args: argparse.Namespace) -> list[str]:
    """The options that play on the same cluster again (for a resume hint)."""
    cluster = getattr(args, "ray_cluster", None)
    if cluster is None:
        return []
    return ["--ray", cluster.address, *(["--ray-shared"] if cluster.shared else [])]
