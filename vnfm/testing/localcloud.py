"""``vnfm-localcloud up|down|status``: local OpenStack for tests and demo."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from vnfm.testing.openstack import build
from vnfm.testing.openstack.cloud import CloudError, LocalCloud

__all__ = ["LocalCloud", "main"]


def default_state_dir(name: str) -> Path:
    """Where ``up`` keeps a named cloud's files by default."""
    return Path.home() / ".cache" / "vnfm" / "localcloud" / name


def _loaded(state_dir: Path) -> LocalCloud | None:
    if not (state_dir / "state.json").exists():
        return None
    return LocalCloud.load(state_dir)


def _up(args: argparse.Namespace) -> int:
    existing = _loaded(args.state_dir)
    if existing and existing.running():
        print(json.dumps(existing.describe(), indent=2))
        return 0
    if existing:
        existing.stop()  # leftovers of a crashed cloud
    cloud = LocalCloud(args.state_dir, name=args.name)
    try:
        cloud.start(timeout=args.timeout)
    except (CloudError, build.BuildUnavailable) as e:
        print(f"vnfm-localcloud: {e}", file=sys.stderr)
        return 1
    print(json.dumps(cloud.describe(), indent=2))
    return 0


def _down(args: argparse.Namespace) -> int:
    cloud = _loaded(args.state_dir)
    if cloud:
        cloud.stop()
    print(json.dumps({"name": args.name, "stopped": cloud is not None}))
    return 0


def _status(args: argparse.Namespace) -> int:
    cloud = _loaded(args.state_dir)
    if cloud is None:
        print(json.dumps({"name": args.name, "running": False}))
        return 1
    running = cloud.running()
    info = cloud.describe() | {
        "running": running,
        "memory_kib": cloud.memory_kib(),
    }
    print(json.dumps(info, indent=2))
    return 0 if running else 1


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog="vnfm-localcloud", description=__doc__
    )
    parser.add_argument("command", choices=("up", "down", "status"))
    parser.add_argument(
        "--name", default="default", help="cloud name (default: default)"
    )
    parser.add_argument(
        "--state-dir",
        type=Path,
        help="default ~/.cache/vnfm/localcloud/<name>",
    )
    parser.add_argument("--timeout", type=float, default=180.0)
    args = parser.parse_args(argv)
    args.state_dir = (args.state_dir or default_state_dir(args.name)).resolve()
    return args


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``vnfm-localcloud``."""
    args = parse_args(argv)
    return {"up": _up, "down": _down, "status": _status}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
