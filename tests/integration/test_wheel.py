"""The two distributions as an operator and a tester install them: the
product wheel (vnfm) alone runs vnfm-all and holds nothing of the testbed;
the testbed wheel (vnfm-testbed) beside it finds its files without the
source tree."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess  # nosec B404
import sys
import sysconfig
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(argv: list[str], **kw: object) -> subprocess.CompletedProcess:
    return subprocess.run(  # nosec B603
        argv, capture_output=True, text=True, timeout=600, check=False, **kw
    )  # type: ignore[call-overload]


def _build(source: Path, out: Path, name: str) -> Path:
    built = _run(
        [sys.executable, '-m', 'pip', 'wheel', '-q', '--no-deps']
        + ['-w', str(out), str(source)]
    )
    assert built.returncode == 0, built.stderr[-3000:]
    (path,) = out.glob(f'{name}-*.whl')
    return path


@pytest.fixture(scope='module')
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp('wheels')
    # setuptools builds in the source folder (build/, *.egg-info): build
    # the testbed from a copy, so the checkout stays as git has it.
    testbed = tmp_path_factory.mktemp('src') / 'vnfm_testbed'
    shutil.copytree(
        ROOT / 'vnfm_testbed',
        testbed,
        ignore=shutil.ignore_patterns('build', '*.egg-info', '__pycache__'),
    )
    return {
        'vnfm': _build(ROOT, out, 'vnfm'),
        'vnfm_testbed': _build(testbed, out, 'vnfm_testbed'),
    }


def _venv(tmp: Path, *wheels: Path) -> Path:
    """A venv with only ``wheels``; their dependencies come from this
    venv's site-packages (PYTHONPATH: the editable installs' .pth files
    are not read from there)."""
    made = _run([sys.executable, '-m', 'venv', '--without-pip', str(tmp)])
    assert made.returncode == 0, made.stderr
    installed = _run(
        [sys.executable, '-m', 'pip', '--python', str(tmp / 'bin' / 'python')]
        + ['install', '-q', '--no-deps', *map(str, wheels)]
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    return tmp


@pytest.fixture(scope='module')
def product(
    wheels: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    return _venv(tmp_path_factory.mktemp('product'), wheels['vnfm'])


@pytest.fixture(scope='module')
def testbed(
    wheels: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    return _venv(
        tmp_path_factory.mktemp('testbed'),
        wheels['vnfm'],
        wheels['vnfm_testbed'],
    )


def _env() -> dict[str, str]:
    return {**os.environ, 'PYTHONPATH': sysconfig.get_paths()['purelib']}


def _console_scripts(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = (
            n for n in archive.namelist() if n.endswith('entry_points.txt')
        )
        text = archive.read(name).decode()
    section, scripts = '', set()
    for line in text.splitlines():
        if line.startswith('['):
            section = line.strip('[]')
        elif section == 'console_scripts' and '=' in line:
            scripts.add(line.split('=')[0].strip())
    return scripts


def test_the_product_wheel_holds_no_testbed(wheels: dict[str, Path]) -> None:
    names = zipfile.ZipFile(wheels['vnfm']).namelist()
    assert not [n for n in names if n.startswith('vnfm_testbed/')]
    assert not [n for n in names if n.startswith('vnfm/testing/')]
    assert any(
        n.endswith('/share/vnfm/samples/noop_vnf/TOSCA-Metadata/TOSCA.meta')
        for n in names
    )
    assert _console_scripts(wheels['vnfm']) == {
        'vnfm-api',
        'vnfm-conductor',
        'vnfm-all',
        'vnfm-db-manage',
    }


def test_the_testbed_wheel_ships_its_commands_and_build_script(
    wheels: dict[str, Path],
) -> None:
    names = zipfile.ZipFile(wheels['vnfm_testbed']).namelist()
    assert 'vnfm_testbed/k8s/build-k8s.sh' in names
    assert 'vnfm_testbed/openstack/heat_plugin/localcloud_nova.py' in names
    assert not [n for n in names if n.startswith('vnfm/')]
    assert _console_scripts(wheels['vnfm_testbed']) == {
        'vnfm-demo',
        'vnfm-localk8s',
        'vnfm-localcloud',
    }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def _get_json(url: str, deadline: float, proc: subprocess.Popen) -> object:
    """GET ``url`` until it answers, the server exits or the deadline."""
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:  # nosec
                return json.load(answer)
        except OSError:
            assert proc.poll() is None, proc.communicate()[1][-3000:]
            assert time.monotonic() < deadline, f'{url} never answered'
            time.sleep(0.1)


def test_vnfm_all_runs_from_the_product_wheel_alone(
    product: Path, tmp_path: Path
) -> None:
    no_testbed = _run(
        [str(product / 'bin' / 'python'), '-c', 'import vnfm_testbed'],
        env=_env(),
        cwd=tmp_path,
    )
    assert no_testbed.returncode == 1
    assert "No module named 'vnfm_testbed'" in no_testbed.stderr
    port = _free_port()
    conf = tmp_path / 'vnfm.conf'
    conf.write_text(
        f'[DEFAULT]\nstate_path = {tmp_path / "state"}\n'
        f'[api]\nhost_ip = 127.0.0.1\nport = {port}\n'
    )
    proc = subprocess.Popen(  # nosec B603
        [str(product / 'bin' / 'vnfm-all'), '--config-file', str(conf)],
        env=_env(),
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        versions = _get_json(
            f'http://127.0.0.1:{port}/vnflcm/api_versions',
            time.monotonic() + 60,
            proc,
        )
        assert isinstance(versions, dict) and versions['apiVersions']
        module = _run(
            [
                str(product / 'bin' / 'python'),
                '-c',
                'import vnfm.cmd.all; print(vnfm.cmd.all.__file__)',
            ],
            env=_env(),
            cwd=tmp_path,
        )
        assert Path(module.stdout.strip()).is_relative_to(product)
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def test_installed_tools_find_their_files(
    testbed: Path, tmp_path: Path
) -> None:
    code = (
        'import vnfm; from vnfm_testbed.k8s import k8sbuild; '
        'from vnfm_testbed.demo import cli as demo; '
        'print(vnfm.__file__, k8sbuild.build_script(), demo._SAMPLES)'
    )
    out = _run(
        [str(testbed / 'bin' / 'python'), '-c', code], env=_env(), cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    module, script, samples = map(Path, out.stdout.split())
    assert module.is_relative_to(testbed)  # not the source tree
    assert script.is_relative_to(testbed) and script.is_file()
    assert samples == testbed / 'share' / 'vnfm' / 'samples'
    assert (samples / 'noop_vnf' / 'TOSCA-Metadata' / 'TOSCA.meta').is_file()


def test_installed_vnfm_localk8s_runs(testbed: Path, tmp_path: Path) -> None:
    state = tmp_path / 'state'
    out = _run(
        [
            str(testbed / 'bin' / 'vnfm-localk8s'),
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
        [str(testbed / 'bin' / 'vnfm-localk8s'), '--help'],
        env=_env(),
        cwd=tmp_path,
    )
    assert out.returncode == 0 and 'up,down,status' in out.stdout
