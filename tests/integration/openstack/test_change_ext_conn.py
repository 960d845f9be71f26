"""Change external connectivity through the real client on the local
cloud. Heat replaces a moved CP's port and asks the server to swap its
interface; the local cloud's server cannot attach or detach interfaces,
so the op fails there with that reason (a cloud with Nova would complete
it; not tested), the instance record unchanged. Its rollback fails the
same way (moving the port back is an interface change too), so the user
fails the op and terminates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vnfm.testing import vmsample
from vnfm.testing.client import TackerClient
from vnfm.testing.openstack.cloud import LocalCloud

from ..conftest import Api
from .test_vnf_lifecycle import _run_op
from .test_vnf_lifecycle import _stacks

pytestmark = pytest.mark.timeout(900)


def test_change_ext_conn_fails_on_the_local_cloud_with_its_reason(
    vim: dict,  # noqa: F811
    packages: dict[str, dict],  # noqa: F811
    vm_client: TackerClient,  # noqa: F811
    vm_api: Api,  # noqa: F811
    local_cloud: LocalCloud,
    tmp_path: Path,
) -> None:
    vnfd_id = packages['simple']['vnfdId']
    inst_id = vm_client.lcm_json('create', vnfd_id, '--name', 'vm-ec')['ID']
    body = tmp_path / 'inst.json'
    body.write_text(json.dumps(vmsample.instantiate_request(vim['id'])))
    _run_op(
        vm_client, vm_api, tmp_path, inst_id, 'INSTANTIATE', 'instantiate',
        inst_id, str(body),
    )  # fmt: skip
    assert f'vnf-{inst_id}' in _stacks(local_cloud)
    links = vm_api.instance(inst_id)['instantiatedVnfInfo'][
        'extVirtualLinkInfo'
    ]
    change = tmp_path / 'change.json'
    change.write_text(
        json.dumps(
            {
                'extVirtualLinks': [
                    {
                        'id': 'ext1',
                        'resourceId': 'data-net-2',
                        'extCps': [
                            {'cpdId': 'VDU2_CP1', 'cpConfig': {'a': {}}}
                        ],
                    }
                ]
            }
        )
    )

    op = _run_op(
        vm_client, vm_api, tmp_path, inst_id, 'CHANGE_EXT_CONN',
        'change-ext-conn', inst_id, str(change), state='FAILED_TEMP',
    )  # fmt: skip

    detail = op['error']['detail']
    assert 'does not attach or detach interfaces' in detail, detail
    info = vm_api.instance(inst_id)['instantiatedVnfInfo']
    assert info['extVirtualLinkInfo'] == links
    vm_client.lcm('op', 'fail', op['id'])
    vm_api.wait_op(op['id'], 'FAILED', timeout=60)
    _run_op(
        vm_client, vm_api, tmp_path, inst_id, 'TERMINATE', 'terminate',
        inst_id,
    )  # fmt: skip
    vm_client.lcm('delete', inst_id)
