"""The conductor's periodic sync: a Pod Kubernetes replaced by itself shows
up in vnfcResourceInfo under the same VNFC id."""

from __future__ import annotations

import pytest

from ..conftest import wait_for
from .conftest import V1_VNFD_ID
from .conftest import inline_vim
from .conftest import instantiate_body
from .conftest import pods_of
from .conftest import vnfcs_of

pytestmark = pytest.mark.timeout(120)


def test_vnfc_follows_a_pod_kubernetes_replaced(
    cnf_client, cnf_api, cnf_packages, kubectl, local_k8s, namespace
) -> None:
    api = cnf_api
    vim = inline_vim(local_k8s)
    inst_id = api.create_instance(V1_VNFD_ID, name='cnf-sync')
    op_id = api.start(inst_id, 'instantiate', instantiate_body(namespace, vim))
    api.wait_op(op_id, 'COMPLETED', timeout=60)
    before = api.instance(inst_id)
    ((vnfc_id, old_pod),) = vnfcs_of(before, 'VDU1').items()

    kubectl.run('delete', 'pod', old_pod, '-n', namespace, '--wait=false')

    def followed() -> dict | None:
        inst = api.instance(inst_id)
        new_pod = vnfcs_of(inst, 'VDU1').get(vnfc_id)
        if new_pod in (None, old_pod):
            return None
        return inst

    after = wait_for(followed, 30, 'vnfcResourceInfo to follow the new Pod')
    assert set(vnfcs_of(after)) == set(vnfcs_of(before))  # ids unchanged
    assert sorted(pods_of(after)) == sorted(
        kubectl.live_pods(namespace, inst_id)
    )
    # No LCM op ran: the sync is not an operation.
    ops = api.ok(
        'GET',
        '/vnf_lcm_op_occs',
        200,
        params={'filter': f'(eq,vnfInstanceId,{inst_id})'},
    ).json()
    assert [o['operation'] for o in ops] == ['INSTANTIATE']
    shown = cnf_client.lcm_json('show', inst_id)
    assert vnfcs_of(shown, 'VDU1') == {vnfc_id: vnfcs_of(after)[vnfc_id]}

    op_id = api.start(inst_id, 'terminate', {'terminationType': 'FORCEFUL'})
    api.wait_op(op_id, 'COMPLETED', timeout=60)
    assert kubectl.objects(namespace, inst_id) == {}
