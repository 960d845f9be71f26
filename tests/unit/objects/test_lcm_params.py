"""Hostile values in the additionalParams Tacker's users know by name: a
400 naming the parameter, or (package paths) a name only looked up."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit import hostile_values
from vnfm.common import exceptions
from vnfm.drivers.infra.kubernetes import resources
from vnfm.drivers.package_files import PackageFiles
from vnfm.objects import lcm_params

#: Parameter -> (a valid value, where the value sits in it).
PARAMETERS: dict[str, Any] = {
    'namespace': 'vnf-ns',
    'lcm-kubernetes-def-files/0': 'Files/kubernetes/deployment.yaml',
    'lcm-operation-user-data': './UserData/userdata.py',
    'lcm-operation-user-data-class': 'UserData',
}
_PATHS = ('lcm-kubernetes-def-files/0', 'lcm-operation-user-data')
_PATH_REFUSED = ('dot-dot', 'nul', 'huge')


def params_with(path: str, value: str) -> dict[str, Any]:
    """additionalParams with ``value`` at ``path``."""
    name, _, index = path.partition('/')
    return {name: [value] if index else value}


def _cases(refused: bool) -> list[Any]:
    return [
        pytest.param(path, base + payload, id=f'{path}-{name}')
        for path, base in PARAMETERS.items()
        for name, payload in hostile_values.PAYLOADS.items()
        if refused == (path not in _PATHS or name in _PATH_REFUSED)
    ]


@pytest.mark.parametrize('path, value', _cases(refused=True))
def test_a_hostile_value_is_a_400_naming_the_parameter(path, value):
    with pytest.raises(exceptions.BadRequest) as e:
        lcm_params.check(params_with(path, value))
    assert e.value.detail.startswith(f'additionalParams/{path}: ')
    assert len(e.value.detail) < 1000


@pytest.mark.parametrize('path, value', _cases(refused=False))
def test_a_hostile_package_path_is_only_looked_up(path, value):
    lcm_params.check(params_with(path, value))
    package = PackageFiles('p', {'Files/kubernetes/deployment.yaml': b''})
    with pytest.raises(resources.BadManifests) as e:
        resources.read_manifests(package, [value])
    assert e.value.detail == (
        f'{resources.DEF_FILES}: {value} is not in package p.'
    )


def test_the_usual_values_pass():
    given: dict[str, Any] = {}
    for path, value in PARAMETERS.items():
        given.update(params_with(path, value))
    lcm_params.check(given)
