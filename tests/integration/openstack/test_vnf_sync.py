"""The periodic sync of VM-based VNFs on the local cloud: a server deleted
behind Heat's back (as ``openstack server delete`` would) shows in
instantiatedVnfInfo and a heal through vnfm brings it back; a server the
cloud's operator had Heat replace is followed; an instance whose op is
unfinished is left alone until the op ends."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from vnfm_testbed.client import TackerClient
from vnfm_testbed.openstack import catalogue
from vnfm_testbed.openstack.cloud import LocalCloud

from ..conftest import Api
from ..conftest import wait_for
from .conftest import openstack
from .test_vnf_heal_change import _change_request
from .test_vnf_lifecycle import _cp_address
from .test_vnf_lifecycle import _run_op
from .test_vnf_lifecycle import _servers
from .test_vnf_lifecycle import _ssh_hostname
from .test_vnf_lifecycle import instantiated

pytestmark = pytest.mark.timeout(900)

CIRROS = catalogue.IMAGES['cirros-0.6']


@pytest.fixture(scope='module')
def instances(
    vim: dict,
    packages: dict[str, dict],
    vm_client: TackerClient,
    vm_api: Api,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[list[str]]:
    """Two instantiated vm_simple; terminated and deleted afterwards."""
    tmp = tmp_path_factory.mktemp('vm-sync')
    made = []
    try:
        for name in ('vm-sync-a', 'vm-sync-b'):
            made.append(
                instantiated(
                    vm_client,
                    vm_api,
                    vim,
                    packages['simple']['vnfdId'],
                    tmp,
                    name,
                )
            )
        yield made
    finally:
        for inst_id in made:
            _run_op(
                vm_client,
                vm_api,
                tmp,
                inst_id,
                'TERMINATE',
                'terminate',
                inst_id,
            )
            vm_client.lcm('delete', inst_id)


def _vnfc(api: Api, inst_id: str, vdu_id: str) -> dict:
    info = api.instance(inst_id)['instantiatedVnfInfo']
    [vnfc] = [v for v in info['vnfcResourceInfo'] if v['vduId'] == vdu_id]
    [state] = [
        c['vnfcState']
        for c in info['vnfcInfo']
        if c['vnfcResourceInfoId'] == vnfc['id']
    ]
    return dict(vnfc, state=state)


def _gone(api: Api, inst_id: str, vdu_id: str) -> dict | None:
    vnfc = _vnfc(api, inst_id, vdu_id)
    return vnfc if vnfc['metadata'].get('server_status') else None


def test_a_server_deleted_behind_heats_back_is_noticed_and_healed(
    instances: list[str],
    packages: dict[str, dict],
    vm_client: TackerClient,
    vm_api: Api,
    local_cloud: LocalCloud,
    tmp_path: Path,
) -> None:
    idle, busy = instances
    # An unfinished op on ``busy``: a change whose image is not there.
    op = _change_to_a_missing_image(
        vm_client, vm_api, tmp_path, busy, packages
    )
    busy_before = vm_api.instance(busy)['instantiatedVnfInfo']
    old = _vnfc(vm_api, idle, 'VDU2')

    local_cloud.delete_server(
        _vnfc(vm_api, busy, 'VDU2')['computeResource']['resourceId']
    )
    local_cloud.delete_server(old['computeResource']['resourceId'])

    # The sync marks the idle instance's VNFC: same id, same (gone) server.
    gone = wait_for(
        lambda: _gone(vm_api, idle, 'VDU2'), 60, 'the deleted server noticed'
    )
    assert gone['id'] == old['id']
    assert gone['computeResource'] == old['computeResource']
    assert gone['metadata']['server_status'] == 'NOT_FOUND'
    assert gone['state'] == 'STOPPED'
    # That round skipped the instance whose op is FAILED_TEMP.
    assert vm_api.instance(busy)['instantiatedVnfInfo'] == busy_before

    _heal_vdu2(vm_client, vm_api, tmp_path, idle, old)
    _assert_vdu2_healed_on_a_new_server(vm_api, local_cloud, idle, old)

    # Once its op has ended (FAILED), the other instance is synced too.
    vm_client.lcm('op', 'fail', op['id'])
    vm_api.wait_op(op['id'], 'FAILED', timeout=60)
    wait_for(lambda: _gone(vm_api, busy, 'VDU2'), 60, 'the busy one synced')


def _change_to_a_missing_image(
    vm_client: TackerClient,
    vm_api: Api,
    tmp_path: Path,
    busy: str,
    packages: dict[str, dict],
) -> dict:
    """A change_vnfpkg of ``busy`` left FAILED_TEMP (its image is not
    there)."""
    return _run_op(
        vm_client,
        vm_api,
        tmp_path,
        busy,
        'CHANGE_VNFPKG',
        'change-vnfpkg',
        busy,
        str(_change_request(tmp_path, packages['v2noimage']['vnfdId'])),
        state='FAILED_TEMP',
    )


def _heal_vdu2(
    vm_client: TackerClient, vm_api: Api, tmp_path: Path, idle: str, old: dict
) -> None:
    _run_op(
        vm_client,
        vm_api,
        tmp_path,
        idle,
        'HEAL',
        'heal',
        idle,
        '--vnfc-instance',
        f'VDU2-{old["id"]}',
    )


def _assert_vdu2_healed_on_a_new_server(
    vm_api: Api, local_cloud: LocalCloud, idle: str, old: dict
) -> None:
    healed = _vnfc(vm_api, idle, 'VDU2')
    assert healed['id'] == old['id']
    new_server = healed['computeResource']['resourceId']
    assert new_server != old['computeResource']['resourceId']
    assert new_server in _servers(local_cloud, f'vnf-{idle}')
    assert 'server_status' not in healed['metadata']
    assert healed['state'] == 'STARTED'
    assert _ssh_hostname(
        _cp_address(healed, 'VDU2_CP1'), CIRROS['user'], CIRROS['password']
    )


def test_a_server_the_operator_had_heat_replace_is_followed(
    instances: list[str], vm_api: Api, local_cloud: LocalCloud
) -> None:
    idle = instances[0]
    old = _vnfc(vm_api, idle, 'VDU1')
    meta = old['metadata']

    openstack(
        local_cloud,
        'demo',
        'stack',
        'resource',
        'mark',
        'unhealthy',
        meta['stack_id'],
        meta['resource_name'],
        'operator',
    )
    openstack(
        local_cloud,
        'demo',
        'stack',
        'update',
        '--existing',
        '--wait',
        f'vnf-{idle}',
    )

    new = wait_for(
        lambda: (
            (vnfc := _vnfc(vm_api, idle, 'VDU1'))['computeResource'][
                'resourceId'
            ]
            != old['computeResource']['resourceId']
            and vnfc
        ),
        60,
        'the replaced server followed',
    )
    assert new['id'] == old['id']
    assert new['computeResource']['resourceId'] in _servers(
        local_cloud, f'vnf-{idle}'
    )
