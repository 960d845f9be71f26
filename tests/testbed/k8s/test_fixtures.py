"""The local_k8s fixture when Kubernetes cannot be had: skip or fail."""

from __future__ import annotations

import os
import subprocess  # nosec B404
import sys
from pathlib import Path

import pytest

from vnfm_testbed import prereqs

TEST = """
from vnfm_testbed.k8s.fixtures import local_k8s  # noqa: F401


def test_needs_kubernetes(local_k8s):
    pass
"""


def _run(tmp_path: Path, **env: str) -> str:
    """Run a test that uses local_k8s with no binaries and no build
    script; pytest's summary line."""
    (tmp_path / 'test_k8s.py').write_text(TEST)
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in ('CI', prereqs.STRICT_ENV, 'VNFM_SKIP_K8S')
    }
    clean |= {
        'VNFM_K8S_CACHE': str(tmp_path / 'cache'),
        'VNFM_K8S_BUILD_SCRIPT': str(tmp_path / 'no-build.sh'),
        **env,
    }
    proc = subprocess.run(  # nosec B603
        [
            sys.executable,
            '-m',
            'pytest',
            '-p',
            'no:cacheprovider',
            '-q',
            '-rsE',
            str(tmp_path / 'test_k8s.py'),
        ],
        capture_output=True,
        text=True,
        env=clean,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    return proc.stdout


def test_skips_on_a_developer_machine(tmp_path: Path) -> None:
    out = _run(tmp_path)
    assert '1 skipped' in out and 'no-build.sh not found' in out


@pytest.mark.parametrize('env', [{'CI': 'true'}, {prereqs.STRICT_ENV: '1'}])
def test_fails_in_ci_and_under_run_tests(
    tmp_path: Path, env: dict[str, str]
) -> None:
    out = _run(tmp_path, **env)
    assert '1 error' in out and 'skipped' not in out
    assert 'a missing prerequisite fails' in out


def test_opt_out_skips_outside_ci_only(tmp_path: Path) -> None:
    assert '1 skipped' in _run(
        tmp_path, VNFM_SKIP_K8S='1', **{prereqs.STRICT_ENV: '1'}
    )
    assert '1 error' in _run(tmp_path, VNFM_SKIP_K8S='1', CI='true')
