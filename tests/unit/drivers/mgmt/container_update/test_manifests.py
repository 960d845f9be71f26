"""Manifests of a container update are read by the bounded parser."""

from __future__ import annotations

import pytest

from tests.unit import hostile_values
from vnfm.drivers.mgmt.container_update import manifests
from vnfm.drivers.package_files import PackageFiles


@pytest.mark.parametrize(
    'data', hostile_values.YAML_BOMBS.values(), ids=hostile_values.YAML_BOMBS
)
def test_a_yaml_bomb_is_refused_naming_the_file(data: bytes):
    package = PackageFiles('p', {'Files/k.yaml': data})
    with pytest.raises(manifests.BadUpdate) as e:
        manifests.read(package, 'Files/k.yaml')
    assert e.value.detail.startswith('Files/k.yaml of VNF package p: YAML ')
