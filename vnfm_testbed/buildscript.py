"""Running a tools/build-*.sh script that caches what the tests need."""

from __future__ import annotations

import json
import subprocess  # nosec B404
from pathlib import Path
from typing import Any


class BuildUnavailable(RuntimeError):
    """What a build script makes is missing and cannot be built here."""


def run(script: Path, timeout: float) -> dict[str, Any]:
    """Run ``script`` (built once, then a no-op); the JSON object of its
    last output line."""
    if not script.exists():
        raise BuildUnavailable(f'{script} not found')
    proc = subprocess.run(  # nosec B603
        ['bash', str(script)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if proc.returncode != 0:
        tail = '\n'.join(proc.stderr.splitlines()[-20:])
        raise BuildUnavailable(f'{script} failed ({proc.returncode}):\n{tail}')
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))
