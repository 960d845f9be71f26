"""Locating the OpenStack virtualenv that tools/build-openstack.sh builds."""

from __future__ import annotations

import json
import os
import subprocess  # nosec B404
from pathlib import Path

SERIES = "2026.2"


class BuildUnavailable(RuntimeError):
    """The OpenStack virtualenv is missing and cannot be built here."""


def cache_dir() -> Path:
    """Directory where tools/build-openstack.sh caches the virtualenv."""
    default = Path.home() / ".cache" / "vnfm" / f"openstack-{SERIES}"
    return Path(os.environ.get("VNFM_OPENSTACK_CACHE", default))


def build_script() -> Path:
    """Path of tools/build-openstack.sh."""
    return Path(__file__).resolve().parents[3] / "tools" / "build-openstack.sh"


def ensure_built(timeout: float = 3600.0) -> Path:
    """Return the virtualenv directory, running the build script (a no-op
    when it is cached and current)."""
    script = build_script()
    if not script.exists():
        raise BuildUnavailable(f"{script} not found")
    proc = subprocess.run(  # nosec B603
        ["bash", str(script)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.splitlines()[-20:])
        raise BuildUnavailable(f"{script} failed ({proc.returncode}):\n{tail}")
    return Path(json.loads(proc.stdout.strip().splitlines()[-1])["venv"])
