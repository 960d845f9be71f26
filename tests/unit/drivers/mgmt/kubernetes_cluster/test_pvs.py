"""PV manifests of pv_registration_params are read by the bounded parser
(more of pvs is exercised in test_storage)."""

from __future__ import annotations

import pytest

from tests.unit import hostile_values
from tests.unit.drivers.mgmt.kubernetes_cluster.test_storage import package
from tests.unit.drivers.mgmt.kubernetes_cluster.test_storage import params
from tests.unit.objects.test_k8s_storage import with_storage
from vnfm.common import exceptions
from vnfm.drivers.mgmt.kubernetes_cluster import pvs
from vnfm.objects import k8s_cluster

_WHERE = (
    'additionalParams/k8s_cluster_installation_param/pv_registration_params'
    '/0/pv_manifest_file_path: Files/kubernetes/nfs-pv1.yaml: YAML '
)


@pytest.mark.parametrize(
    'data', hostile_values.YAML_BOMBS.values(), ids=hostile_values.YAML_BOMBS
)
def test_a_yaml_bomb_is_refused_naming_the_parameter(data: bytes):
    # A 587-byte manifest of 9 levels of aliases ran the conductor out of
    # memory (expanded by json.dumps in render).
    files = {'Files/kubernetes/nfs-pv1.yaml': data}
    with pytest.raises(exceptions.OperationFailed) as e:
        pvs.read(package(**files), params())
    assert e.value.detail.startswith(_WHERE)


_LOOKED_UP = {
    k: v for k, v in hostile_values.SHELL_PAYLOADS.items() if k != 'dot-dot'
}


@pytest.mark.parametrize('payload', _LOOKED_UP.values(), ids=_LOOKED_UP)
def test_a_hostile_package_path_is_only_looked_up(payload: str):
    # The path names a file of the package (a dict key), never a file of
    # the machine: the API lets any relative path without '..' through.
    path = f'Files/kubernetes/nfs-pv1.yaml{payload}'
    given = with_storage()
    given[k8s_cluster.PARAM]['pv_registration_params'][0][
        'pv_manifest_file_path'
    ] = path
    params = k8s_cluster.parse(given)
    with pytest.raises(exceptions.OperationFailed) as e:
        pvs.read(package(), params)
    assert e.value.detail == (
        f'{_WHERE.split(": ")[0]}: the VNF package has no file {path}.'
    )
