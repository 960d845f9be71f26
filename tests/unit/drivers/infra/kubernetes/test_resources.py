"""Manifests of lcm-kubernetes-def-files are read by the bounded parser."""

from __future__ import annotations

import pytest

from tests.unit import hostile_values
from vnfm.drivers.infra.kubernetes import resources
from vnfm.drivers.package_files import PackageFiles


@pytest.mark.parametrize(
    'data', hostile_values.YAML_BOMBS.values(), ids=hostile_values.YAML_BOMBS
)
def test_a_yaml_bomb_is_refused_naming_the_file(data: bytes):
    package = PackageFiles('p', {'Files/k.yaml': data})
    with pytest.raises(resources.BadManifests) as e:
        resources.read_manifests(package, ['Files/k.yaml'])
    assert e.value.detail.startswith(
        f'{resources.DEF_FILES}: Files/k.yaml: YAML '
    )
