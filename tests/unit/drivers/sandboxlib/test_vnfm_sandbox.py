"""The sandbox's guard over what package code imports, in process (whole
sandboxed runs are tested through tests/unit/drivers/mgmt/test_script.py and
the user-data classes' tests)."""

from __future__ import annotations

import hashlib
import importlib.machinery
import sysconfig

import pytest

from vnfm.drivers.sandboxlib import vnfm_sandbox

SOURCE = b'VALUE = 1\n'


def _guard(package_dir, *allowed: bytes) -> vnfm_sandbox.PackageGuard:
    return vnfm_sandbox.PackageGuard(
        str(package_dir),
        [hashlib.sha256(a).hexdigest() for a in allowed],
        False,
    )


def test_an_extension_module_of_the_package_is_refused(tmp_path):
    suffix = sysconfig.get_config_var('EXT_SUFFIX')
    (tmp_path / f'fast{suffix}').write_bytes(b'\x7fELF not really')

    with pytest.raises(vnfm_sandbox.NotAllowed) as e:
        _guard(tmp_path, SOURCE).find_spec('fast', [str(tmp_path)])

    assert str(e.value).startswith(
        f'fast{suffix} (module fast) is not allowed to run: only Python '
        'source files of a package are imported'
    )
    assert e.value.name == 'fast'


def test_modules_of_a_package_directory_are_checked_one_by_one(tmp_path):
    pkg = tmp_path / 'lib'
    pkg.mkdir()
    (pkg / '__init__.py').write_bytes(b'')
    (pkg / 'a.py').write_bytes(SOURCE)
    (pkg / 'b.py').write_bytes(b'VALUE = 2\n')
    guard = _guard(tmp_path, b'', SOURCE)

    package = guard.find_spec('lib', [str(tmp_path)])
    assert package is not None
    assert package.submodule_search_locations == [str(pkg)]
    assert guard.find_spec('lib.a', [str(pkg)]) is not None
    with pytest.raises(vnfm_sandbox.NotAllowed, match='lib/b.py'):
        guard.find_spec('lib.b', [str(pkg)])


def test_modules_outside_the_package_are_the_path_finders(tmp_path):
    spec = _guard(tmp_path).find_spec('json', None)

    assert spec is not None
    assert spec == importlib.machinery.PathFinder.find_spec('json')
    assert isinstance(spec.loader, importlib.machinery.SourceFileLoader)
