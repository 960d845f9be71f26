"""PV manifests of pv_registration_params are read by the bounded parser
(more of pvs is exercised in test_storage)."""

from __future__ import annotations

import pytest

from tests.unit import hostile_values
from tests.unit.drivers.mgmt.kubernetes_cluster.test_storage import package
from tests.unit.drivers.mgmt.kubernetes_cluster.test_storage import params
from vnfm.common import exceptions
from vnfm.drivers.mgmt.kubernetes_cluster import pvs

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
