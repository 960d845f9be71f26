"""A scale vnfm cannot produce on a Heat stack is refused before an op is
recorded, never COMPLETED with a scale level the stack does not have
(issue 17, item 11): packages in two layouts Tacker uses, through the real
client on the local cloud."""

from __future__ import annotations

from pathlib import Path

import pytest

from vnfm.csar.build import build_csar
from vnfm_testbed.client import ClientError
from vnfm_testbed.client import TackerClient
from vnfm_testbed.openstack import vmsample
from vnfm_testbed.openstack.cloud import LocalCloud

from ..conftest import Api
from .conftest import _variant
from .test_vnf_lifecycle import _run_op
from .test_vnf_lifecycle import _servers
from .test_vnf_lifecycle import instantiated

pytestmark = pytest.mark.timeout(600)
LAYOUTS = {
    'server': vmsample.server_layout,
    'policy': vmsample.policy_layout,
}


@pytest.mark.parametrize('layout', sorted(LAYOUTS))
def test_a_scale_heat_cannot_do_is_refused_before_an_op(
    layout: str,
    vim: dict,
    vm_client: TackerClient,
    vm_api: Api,
    local_cloud: LocalCloud,
    tmp_path: Path,
) -> None:
    src = _variant(tmp_path, '@never@', '@never@')
    top = src / vmsample.TOP_HOT
    top.write_text(LAYOUTS[layout](top.read_text()))
    (tmp_path / 'pkg.zip').write_bytes(build_csar(str(src)))
    vnfd_id = vm_api.onboard(tmp_path / 'pkg.zip', timeout=60)['vnfdId']
    inst = instantiated(
        vm_client, vm_api, vim, vnfd_id, tmp_path, f'vm-{layout}'
    )
    stack = f'vnf-{inst}'
    before = _servers(local_cloud, stack)

    with pytest.raises(ClientError) as refused:
        vm_client.lcm(
            'scale', inst, '--aspect-id', 'VDU1_scale',
            '--type', 'SCALE_OUT', '--number-of-steps', '2',
        )  # fmt: skip

    output = refused.value.stdout + refused.value.stderr
    assert 'VDU VDU1' in output and 'AutoScalingGroup' in output, output
    raw = vm_api.lcm(
        'POST',
        f'/vnf_instances/{inst}/scale',
        json={'type': 'SCALE_OUT', 'aspectId': 'VDU1_scale'},
    )
    assert raw.status_code == 422, raw.text
    assert 'SCALE' not in {o['operation'] for o in vm_api.ops(inst)}
    info = vm_api.instance(inst)['instantiatedVnfInfo']
    assert info['scaleStatus'] == [{'aspectId': 'VDU1_scale', 'scaleLevel': 0}]
    assert _servers(local_cloud, stack) == before

    _run_op(vm_client, vm_api, tmp_path, inst, 'TERMINATE', 'terminate', inst)
