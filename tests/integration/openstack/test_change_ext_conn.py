"""Change external connectivity through the real client on the local
cloud: Heat replaces the moved CP's port and the server swaps its
interface (Nova's interface detach and attach), the servers kept; each VM
answers SSH at its address on the new network and the instance reports the
new network. Moving the link back works the same way."""

from __future__ import annotations

import ipaddress
import json
from pathlib import Path

import pytest

from vnfm_testbed.client import TackerClient
from vnfm_testbed.openstack import catalogue
from vnfm_testbed.openstack import vmsample
from vnfm_testbed.openstack.cloud import LocalCloud

from ..conftest import Api
from .test_vnf_lifecycle import _cp_address
from .test_vnf_lifecycle import _run_op
from .test_vnf_lifecycle import _ssh_run
from .test_vnf_lifecycle import _stacks

pytestmark = pytest.mark.timeout(900)


def test_change_ext_conn_moves_a_cp_to_another_network_and_back(
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
    vnfcs = vm_api.instance(inst_id)['instantiatedVnfInfo']['vnfcResourceInfo']

    _move_ext1_to_data_net_2(vm_client, vm_api, tmp_path, inst_id)
    _assert_both_cps_on_data_net_2_servers_kept(
        vm_api, local_cloud, inst_id, vnfcs
    )

    back = tmp_path / 'back.json'
    back.write_text(json.dumps({'extVirtualLinks': [links_ext1(links)]}))
    _run_op(
        vm_client, vm_api, tmp_path, inst_id, 'CHANGE_EXT_CONN',
        'change-ext-conn', inst_id, str(back),
    )  # fmt: skip
    info = vm_api.instance(inst_id)['instantiatedVnfInfo']
    moved = next(v for v in info['vnfcResourceInfo'] if v['vduId'] == 'VDU2')
    address = _cp_address(moved, 'VDU2_CP1')
    mgmt = local_cloud.catalogue()['networks']['mgmt-net']
    assert ipaddress.ip_address(address) in ipaddress.ip_network(
        mgmt['subnets'][0]['cidr']
    )
    cirros = catalogue.IMAGES['cirros-0.6']
    assert _ssh_run(address, cirros['user'], cirros['password'], 'hostname')

    _run_op(
        vm_client, vm_api, tmp_path, inst_id, 'TERMINATE', 'terminate',
        inst_id,
    )  # fmt: skip
    vm_client.lcm('delete', inst_id)
    assert f'vnf-{inst_id}' not in _stacks(local_cloud)


def _move_ext1_to_data_net_2(
    vm_client: TackerClient, vm_api: Api, tmp_path: Path, inst_id: str
) -> None:
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

    _run_op(
        vm_client, vm_api, tmp_path, inst_id, 'CHANGE_EXT_CONN',
        'change-ext-conn', inst_id, str(change),
    )  # fmt: skip


def _assert_both_cps_on_data_net_2_servers_kept(
    vm_api: Api, local_cloud: LocalCloud, inst_id: str, vnfcs: list
) -> None:
    info = vm_api.instance(inst_id)['instantiatedVnfInfo']
    moved = next(v for v in info['vnfcResourceInfo'] if v['vduId'] == 'VDU2')
    kept = next(v for v in info['vnfcResourceInfo'] if v['vduId'] == 'VDU1')
    address = _cp_address(moved, 'VDU2_CP1')
    net2 = local_cloud.catalogue()['networks']['data-net-2']
    assert ipaddress.ip_address(address) in ipaddress.ip_network(
        net2['subnets'][0]['cidr']
    )
    ext1 = next(
        link for link in info['extVirtualLinkInfo'] if link['id'] == 'ext1'
    )
    assert ext1['resourceHandle']['resourceId'] in ('data-net-2', net2['id'])
    cirros = catalogue.IMAGES['cirros-0.6']
    assert f'inet {address}/' in _ssh_run(
        address, cirros['user'], cirros['password'], 'ip -4 addr show eth0'
    )
    # ext1 is one link: its other CP (VDU1's) moved with it, its server
    # kept (same id), answering at its new address.
    before = next(v for v in vnfcs if v['vduId'] == 'VDU1')
    assert (
        kept['computeResource']['resourceId']
        == before['computeResource']['resourceId']
    )
    ubuntu = catalogue.IMAGES['ubuntu-22.04']
    other = _cp_address(kept, 'VDU1_CP1')
    assert ipaddress.ip_address(other) in ipaddress.ip_network(
        net2['subnets'][0]['cidr']
    )
    assert _ssh_run(other, ubuntu['user'], ubuntu['password'], 'hostname')
    assert _stacks(local_cloud)[f'vnf-{inst_id}'] == 'UPDATE_COMPLETE'


def links_ext1(links: list[dict]) -> dict:
    """The ExtVirtualLinkData that puts ext1's CPs back where they were."""
    ext1 = next(link for link in links if link['id'] == 'ext1')
    return {
        'id': 'ext1',
        'resourceId': ext1['resourceHandle']['resourceId'],
        'extCps': [{'cpdId': 'VDU2_CP1', 'cpConfig': {'a': {}}}],
    }
