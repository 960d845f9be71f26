"""The runner of user-data classes, in process (the sandboxed runs are
tested through vnfm.drivers.infra.openstack.userdata)."""

from __future__ import annotations

import sys

import pytest

from vnfm.drivers.infra.openstack.scriptlib import run_userdata
from vnfm.drivers.sandboxlib import vnfm_sandbox


def test_tacker_is_refused_other_modules_are_not(monkeypatch):
    finder = run_userdata.NoTacker('UserData/u.py')
    monkeypatch.setattr(sys, 'meta_path', [finder, *sys.meta_path])
    for name in ('tacker', 'tacker.sol_refactored.common'):
        with pytest.raises(ImportError) as e:
            finder.find_spec(name, None)
        assert e.value.name == name
        assert 'UserData/u.py imports ' + name in str(e.value)
    assert finder.find_spec('tackerish', None) is None
    assert finder.find_spec('json', None) is None


def test_call_names_a_missing_class(tmp_path, monkeypatch):
    # load() changes the import machinery of the process it runs in.
    monkeypatch.setattr(sys, 'meta_path', list(sys.meta_path))
    monkeypatch.setattr(sys, 'path', list(sys.path))
    script = tmp_path / 'u.py'
    script.write_text('X = 1\n')
    # As in the sandbox: the guard is installed and found by its name.
    monkeypatch.setitem(sys.modules, 'vnfm_sandbox', vnfm_sandbox)
    vnfm_sandbox.install(
        {'package_dir': str(tmp_path), 'allowed': [], 'any': True}
    )
    doc = {
        'user_data': str(script),
        'user_data_path': 'UserData/u.py',
        'class': 'Nope',
        'operation': 'instantiate',
        'args': {},
    }
    with pytest.raises(SystemExit, match='UserData/u.py has no class Nope'):
        run_userdata.call(doc)
