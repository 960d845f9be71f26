"""An installed vnfm wheel runs its test and demo tools without the source
tree (they found build-k8s.sh and the samples relative to it)."""

from __future__ import annotations

import json
import os
import subprocess  # nosec B404
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(argv: list[str], **kw: object) -> subprocess.CompletedProcess:
    return subprocess.run(  # nosec B603
        argv, capture_output=True, text=True, timeout=600, check=False, **kw
    )  # type: ignore[call-overload]


@pytest.fixture(scope='module')
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp('wheel')
    built = _run(
        [
            sys.executable,
            '-m',
            'pip',
            'wheel',
            '-q',
            '--no-deps',
            '-w',
            str(out),
            str(ROOT),
        ]
    )
    assert built.returncode == 0, built.stderr[-3000:]
    (path,) = out.glob('vnfm-*.whl')
    return path


@pytest.fixture(scope='module')
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with only the wheel; its dependencies come from this venv's
    site-packages (PYTHONPATH: the editable vnfm's .pth is not read)."""
    venv = tmp_path_factory.mktemp('venv')
    made = _run([sys.executable, '-m', 'venv', '--without-pip', str(venv)])
    assert made.returncode == 0, made.stderr
    installed = _run(
        [
            sys.executable,
            '-m',
            'pip',
            '--python',
            str(venv / 'bin' / 'python'),
            'install',
            '-q',
            '--no-deps',
            str(wheel),
        ]
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    return venv


def _env() -> dict[str, str]:
    return {**os.environ, 'PYTHONPATH': sysconfig.get_paths()['purelib']}


def test_wheel_ships_the_build_script_and_samples(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert 'vnfm/testing/build-k8s.sh' in names
    assert any(
        n.endswith('/share/vnfm/samples/noop_vnf/TOSCA-Metadata/TOSCA.meta')
        for n in names
    )


def test_installed_tools_find_their_files(venv: Path, tmp_path: Path) -> None:
    code = (
        'import vnfm; from vnfm.testing import k8sbuild; '
        'from vnfm.cmd import demo; '
        'print(vnfm.__file__, k8sbuild.build_script(), demo._SAMPLES)'
    )
    out = _run(
        [str(venv / 'bin' / 'python'), '-c', code], env=_env(), cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    module, script, samples = map(Path, out.stdout.split())
    assert module.is_relative_to(venv)  # not the source tree
    assert script.is_relative_to(venv) and script.is_file()
    assert samples == venv / 'share' / 'vnfm' / 'samples'
    assert (samples / 'noop_vnf' / 'TOSCA-Metadata' / 'TOSCA.meta').is_file()


def test_installed_vnfm_localk8s_runs(venv: Path, tmp_path: Path) -> None:
    state = tmp_path / 'state'
    out = _run(
        [
            str(venv / 'bin' / 'vnfm-localk8s'),
            'status',
            '--state-dir',
            str(state),
        ],
        env=_env(),
        cwd=tmp_path,
    )
    assert out.returncode == 1, out.stderr  # no cluster there
    assert json.loads(out.stdout) == {'name': 'default', 'running': False}
    out = _run(
        [str(venv / 'bin' / 'vnfm-localk8s'), '--help'],
        env=_env(),
        cwd=tmp_path,
    )
    assert out.returncode == 0 and 'up,down,status' in out.stdout
