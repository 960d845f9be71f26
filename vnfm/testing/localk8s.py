"""``vnfm-localk8s up|down|status``: local Kubernetes for tests and demo."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vnfm.testing import daemoncli, k8sbuild
from vnfm.testing.cluster import (
    DEFAULT_FAILING_IMAGES,
    ClusterError,
    LocalCluster,
)

__all__ = ["LocalCluster", "main"]


def default_state_dir(name: str) -> Path:
    """Where ``up`` keeps a named cluster's files by default."""
    return Path.home() / ".cache" / "vnfm" / "localk8s" / name


def _up(args: argparse.Namespace) -> int:
    return daemoncli.up(
        LocalCluster,
        args.state_dir,
        lambda: LocalCluster(
            args.state_dir,
            nodes=args.nodes,
            pod_ready_delay=args.pod_ready_delay,
            failing_image_pattern=args.failing_images,
            name=args.name,
        ),
        args.timeout,
        (ClusterError, k8sbuild.BuildUnavailable),
        "vnfm-localk8s",
    )


def _down(args: argparse.Namespace) -> int:
    return daemoncli.down(LocalCluster, args.name, args.state_dir)


def _status(args: argparse.Namespace) -> int:
    return daemoncli.status(LocalCluster, args.name, args.state_dir)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(prog="vnfm-localk8s", description=__doc__)
    parser.add_argument("command", choices=("up", "down", "status"))
    parser.add_argument(
        "--name", default="default", help="cluster name (default: default)"
    )
    parser.add_argument(
        "--state-dir", type=Path, help="default ~/.cache/vnfm/localk8s/<name>"
    )
    parser.add_argument("--nodes", type=int, default=2)
    parser.add_argument("--pod-ready-delay", type=float, default=0.2)
    parser.add_argument(
        "--failing-images",
        default=DEFAULT_FAILING_IMAGES,
        help="regex; matching images fail with ImagePullBackOff",
    )
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args(argv)
    args.state_dir = (args.state_dir or default_state_dir(args.name)).resolve()
    return args


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``vnfm-localk8s``."""
    args = parse_args(argv)
    return {"up": _up, "down": _down, "status": _status}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
