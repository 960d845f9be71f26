"""Locating the OpenStack virtualenv that tools/build-openstack.sh builds."""

from __future__ import annotations

import os
from pathlib import Path

from vnfm_testbed import buildscript

SERIES = '2026.2'


BuildUnavailable = buildscript.BuildUnavailable


def cache_dir() -> Path:
    """Directory where tools/build-openstack.sh caches the virtualenv."""
    default = Path.home() / '.cache' / 'vnfm' / f'openstack-{SERIES}'
    return Path(os.environ.get('VNFM_OPENSTACK_CACHE', default))


def build_script() -> Path:
    """Path of tools/build-openstack.sh."""
    return Path(__file__).resolve().parents[2] / 'tools' / 'build-openstack.sh'


def ensure_built(timeout: float = 3600.0) -> Path:
    """Return the virtualenv directory, running the build script (a no-op
    when it is cached and current)."""
    return Path(buildscript.run(build_script(), timeout)['venv'])
