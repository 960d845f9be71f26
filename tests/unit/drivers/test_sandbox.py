"""The sandbox shared by hook scripts and user-data classes: what it runs
and on what (the bounds are tested through the hook scripts in
tests/unit/drivers/mgmt/test_script.py)."""

from __future__ import annotations

import hashlib

import pytest

from vnfm.common import exceptions
from vnfm.drivers import sandbox
from vnfm.drivers.package_files import PackageFiles

CODE = b'raise SystemExit("the package file ran")\n'


def _package() -> PackageFiles:
    return PackageFiles('pkg', {'UserData/u.py': CODE})


def test_a_runner_program_runs_on_the_allowed_package_file(conf, tmp_path):
    conf(
        'allowed_script_sha256',
        [hashlib.sha256(CODE).hexdigest()],
        'mgmt_driver',
    )
    runner = tmp_path / 'runner.py'
    runner.write_text(
        'import json, os, sys\n'
        'doc = json.load(sys.stdin)\n'
        'print(json.dumps({"seen": doc["x"], "cwd": os.getcwd(),\n'
        '    "has": os.path.exists("UserData/u.py")}))\n'
    )
    out = sandbox.run(
        'u',
        _package(),
        'UserData/u.py',
        lambda package_dir: {'x': package_dir},
        10,
        set(),
        program=str(runner),
    )
    assert out['seen'] == out['cwd']
    assert out['has'] is True


def test_the_allow_list_holds_for_a_runner_too(conf, tmp_path):
    with pytest.raises(exceptions.OperationFailed, match='is not allowed'):
        sandbox.run(
            'u',
            _package(),
            'UserData/u.py',
            lambda d: {},
            10,
            set(),
            program=str(tmp_path / 'runner.py'),
        )


def test_a_file_not_in_the_package(conf):
    conf('allow_any_script', True, 'mgmt_driver')
    with pytest.raises(exceptions.OperationFailed, match='not in package pkg'):
        sandbox.run('u', _package(), 'x.py', lambda d: {}, 10, set())


def test_the_package_file_itself_by_default(conf):
    conf('allow_any_script', True, 'mgmt_driver')
    with pytest.raises(exceptions.OperationFailed) as e:
        sandbox.run('u', _package(), 'UserData/u.py', lambda d: {}, 10, set())
    assert e.value.detail == 'u exited with 1: the package file ran'
