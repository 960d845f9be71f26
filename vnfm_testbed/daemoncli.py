"""``up|down|status`` of a set of local test daemons kept in a state dir.

Shared by ``vnfm-localk8s`` and ``vnfm-localcloud``: a handle has
``start(timeout)``, ``stop()``, ``running()``, ``describe()``,
``memory_kib()`` and a ``load(state_dir)`` class method.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _loaded(cls: Any, state_dir: Path) -> Any | None:
    if not (state_dir / 'state.json').exists():
        return None
    return cls.load(state_dir)


def up(
    cls: Any,
    state_dir: Path,
    make: Callable[[], Any],
    timeout: float,
    errors: tuple[type[BaseException], ...],
    prog: str,
) -> int:
    """Start a handle made by ``make`` unless one runs; print it as JSON."""
    existing = _loaded(cls, state_dir)
    if existing and existing.running():
        print(json.dumps(existing.describe(), indent=2))
        return 0
    if existing:
        existing.stop()  # leftovers of a crashed run
    handle = make()
    try:
        handle.start(timeout=timeout)
    except errors as e:
        print(f'{prog}: {e}', file=sys.stderr)
        return 1
    print(json.dumps(handle.describe(), indent=2))
    return 0


def down(cls: Any, name: str, state_dir: Path) -> int:
    """Stop the handle kept in ``state_dir``, if any."""
    handle = _loaded(cls, state_dir)
    if handle:
        handle.stop()
    print(json.dumps({'name': name, 'stopped': handle is not None}))
    return 0


def status(cls: Any, name: str, state_dir: Path) -> int:
    """Print the handle with its liveness and memory; 1 if not running."""
    handle = _loaded(cls, state_dir)
    if handle is None:
        print(json.dumps({'name': name, 'running': False}))
        return 1
    running = handle.running()
    info = handle.describe() | {
        'running': running,
        'memory_kib': handle.memory_kib(),
    }
    print(json.dumps(info, indent=2))
    return 0 if running else 1
