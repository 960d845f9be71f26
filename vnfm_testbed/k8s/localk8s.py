"""``vnfm-localk8s up|down|status``: local Kubernetes for tests and demo."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from vnfm_testbed.k8s import k8sbuild
from vnfm_testbed.k8s.cluster import DEFAULT_FAILING_IMAGES
from vnfm_testbed.k8s.cluster import ClusterError
from vnfm_testbed.k8s.cluster import LocalCluster

__all__ = ['LocalCluster', 'main']


def default_state_dir(name: str) -> Path:
    """Where ``up`` keeps a named cluster's files by default."""
    return Path.home() / '.cache' / 'vnfm' / 'localk8s' / name


def _loaded(state_dir: Path) -> LocalCluster | None:
    if not (state_dir / 'state.json').exists():
        return None
    return LocalCluster.load(state_dir)


class Interrupted(ClusterError):
    """``up`` got a signal that ends it while the cluster started."""


_ENDING = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def _interrupt(signum: int, _frame: Any) -> None:
    for other in _ENDING:  # a second signal must not cut the clean-up short
        signal.signal(other, signal.SIG_IGN)
    raise Interrupted(f'interrupted by {signal.Signals(signum).name}')


@contextlib.contextmanager
def _signals_raise() -> Iterator[None]:
    """Turn SIGTERM, SIGHUP and SIGINT into Interrupted, so that a killed
    ``up`` stops what it started; signals the caller ignores (nohup, ``&``)
    stay ignored."""
    saved = {}
    for signum in _ENDING:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            saved[signum] = signal.signal(signum, _interrupt)
    try:
        yield
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)


def _print(data: Any) -> None:
    """Print ``data`` as JSON; a reader that went away is not a failure."""
    try:
        print(
            json.dumps(data, indent=2 if len(data) > 2 else None), flush=True
        )
    except BrokenPipeError:
        # Python would report the failed flush again at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _up(args: argparse.Namespace) -> int:
    existing = _loaded(args.state_dir)
    if existing and existing.running():
        _print(existing.describe())
        return 0
    if existing:
        existing.stop()  # leftovers of a crashed cluster or a killed `up`
    cluster = LocalCluster(
        args.state_dir,
        nodes=args.nodes,
        pod_ready_delay=args.pod_ready_delay,
        failing_image_pattern=args.failing_images,
        name=args.name,
    )
    try:
        with _signals_raise():
            cluster.start(timeout=args.timeout)
    except (ClusterError, k8sbuild.BuildUnavailable) as e:
        print(f'vnfm-localk8s: {e}', file=sys.stderr)
        return 1
    _print(cluster.describe())
    return 0


def _down(args: argparse.Namespace) -> int:
    cluster = _loaded(args.state_dir)
    if cluster:
        cluster.stop()
    _print({'name': args.name, 'stopped': cluster is not None})
    return 0


def _status(args: argparse.Namespace) -> int:
    cluster = _loaded(args.state_dir)
    if cluster is None:
        _print({'name': args.name, 'running': False})
        return 1
    running = cluster.running()
    info = cluster.describe() | {
        'running': running,
        'memory_kib': cluster.memory_kib(),
    }
    _print(info)
    return 0 if running else 1


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(prog='vnfm-localk8s', description=__doc__)
    parser.add_argument('command', choices=('up', 'down', 'status'))
    parser.add_argument(
        '--name', default='default', help='cluster name (default: default)'
    )
    parser.add_argument(
        '--state-dir', type=Path, help='default ~/.cache/vnfm/localk8s/<name>'
    )
    parser.add_argument('--nodes', type=int, default=2)
    parser.add_argument('--pod-ready-delay', type=float, default=0.2)
    parser.add_argument(
        '--failing-images',
        default=DEFAULT_FAILING_IMAGES,
        help='regex; matching images fail with ImagePullBackOff',
    )
    parser.add_argument('--timeout', type=float, default=120.0)
    args = parser.parse_args(argv)
    args.state_dir = (args.state_dir or default_state_dir(args.name)).resolve()
    return args


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``vnfm-localk8s``."""
    args = parse_args(argv)
    return {'up': _up, 'down': _down, 'status': _status}[args.command](args)


if __name__ == '__main__':
    sys.exit(main())
