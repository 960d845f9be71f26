"""``vnfm-localcloud up|down|status``: local OpenStack for tests and demo."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vnfm_testbed import daemoncli
from vnfm_testbed.openstack import build
from vnfm_testbed.openstack.cloud import CloudError
from vnfm_testbed.openstack.cloud import LocalCloud

__all__ = ['LocalCloud', 'main']


def default_state_dir(name: str) -> Path:
    """Where ``up`` keeps a named cloud's files by default."""
    return Path.home() / '.cache' / 'vnfm' / 'localcloud' / name


def _up(args: argparse.Namespace) -> int:
    return daemoncli.up(
        LocalCloud,
        args.state_dir,
        lambda: LocalCloud(args.state_dir, name=args.name),
        args.timeout,
        (CloudError, build.BuildUnavailable),
        'vnfm-localcloud',
    )


def _down(args: argparse.Namespace) -> int:
    return daemoncli.down(LocalCloud, args.name, args.state_dir)


def _status(args: argparse.Namespace) -> int:
    return daemoncli.status(LocalCloud, args.name, args.state_dir)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog='vnfm-localcloud', description=__doc__
    )
    parser.add_argument('command', choices=('up', 'down', 'status'))
    parser.add_argument(
        '--name', default='default', help='cloud name (default: default)'
    )
    parser.add_argument(
        '--state-dir',
        type=Path,
        help='default ~/.cache/vnfm/localcloud/<name>',
    )
    parser.add_argument('--timeout', type=float, default=180.0)
    args = parser.parse_args(argv)
    args.state_dir = (args.state_dir or default_state_dir(args.name)).resolve()
    return args


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``vnfm-localcloud``."""
    args = parse_args(argv)
    return {'up': _up, 'down': _down, 'status': _status}[args.command](args)


if __name__ == '__main__':
    sys.exit(main())
